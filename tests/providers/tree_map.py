# 2 processes with jax.distributed on CPU, calling the top-level jax.tree_map: removed in JAX
# 0.6.0 (established by running each release directly, docs/reference/bisect.md).
import sys

import jax

coord, n, pid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
jax.distributed.initialize(coord, n, pid)
assert jax.process_count() == n, jax.process_count()
doubled = jax.tree_map(lambda a: a * 2, {"a": 1, "b": [2, 3]})
print(f"process {pid}: ok jax {jax.__version__} {doubled}", flush=True)
