# Sourced by the JAX network tests: jax_matrix NAME SCENARIO RANGE prints a matrix over real JAX
# CPU releases from PyPI through the pip provider (`jax==V jaxlib==V`, a venv per version,
# downloads cached in GH_PIP_CACHE, default $HOME/.cache/gpuharness-pip), 2 ranks on the host.
jax_matrix() {
  cat <<YAML
name: $1
scenarios: ["$2"]
defaults: {launcher: mpirun, ranks: 2, backend: host, timeout: 240s}
versions:
  name: jax
  pip:
    requirements: "jax=={version} jaxlib=={version}"
    index: jax
    range: "$3"
    cache: "${GH_PIP_CACHE:-$HOME/.cache/gpuharness-pip}"
YAML
}
