# The windowed-einsum verifier regression: with multi-stream windowed einsum forced (XLA_FLAGS from the scenario), jax 0.10.2
# fails compilation with "FAILED_PRECONDITION: ... async_computation expected to contain only
# the root and parameter instructions" once a per-device shard exceeds ~1024; 0.10.1 compiles.
# python windowed_einsum.py <coordinator> <num_processes> <process_id> <per_device_n>
# One process may drive every local GPU (num_processes 1), or one process per GPU.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import need  # noqa: E402

jax = need.import_jax()
import jax.numpy as jnp  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

coord, n_proc, pid, per_dev = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
if n_proc > 1:
    jax.distributed.initialize(coord, num_processes=n_proc, process_id=pid)
print(f"XLA_FLAGS={os.environ.get('XLA_FLAGS', '')}", flush=True)
tp = need.need_gpus(jax, 2)

M, K, N = 1024 * tp, 8192, per_dev * tp
mesh = Mesh(jax.devices(), ("tp",))
k1, k2 = jax.random.split(jax.random.PRNGKey(0), 2)
xs = NamedSharding(mesh, P("tp", None))
hs = NamedSharding(mesh, P(None, "tp"))
x = jax.jit(lambda k: jax.random.normal(k, (M, K), jnp.bfloat16), out_shardings=xs)(k1)
w1 = jax.jit(lambda k: jax.random.normal(k, (K, N), jnp.bfloat16), out_shardings=hs)(k2)


def f(x, w1):
    return jnp.tanh(jax.lax.with_sharding_constraint(x @ w1, hs))


y = jax.jit(f, out_shardings=hs)(x, w1).block_until_ready()
detail = ""
if y.is_fully_addressable:
    # One column block's first 64 rows against an f32 reference at full precision.
    shard = y.addressable_shards[0]
    cols = shard.index[1]
    with jax.default_matmul_precision("highest"):
        ref = jnp.tanh(jnp.asarray(x[:64], jnp.float32) @ jnp.asarray(w1[:, cols], jnp.float32))
    err = float(jnp.max(jnp.abs(jnp.asarray(shard.data[:64], jnp.float32) - ref)))
    if err > 0.05:
        print(f"process {pid}: wrong result: max |error| {err:.3g} in rows 0..63", flush=True)
        sys.exit(1)
    detail = f", max |error| {err:.3g}"
print(f"process {pid}: ok (tp={tp}, M={M} K={K} N={N}, per-device {per_dev}{detail})", flush=True)
