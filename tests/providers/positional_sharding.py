# 2 processes with jax.distributed on CPU, reaching jax.sharding.PositionalSharding: deprecated in
# JAX 0.6.0, removed in 0.7.0 with a message that says so ("...was deprecated in JAX v0.6.0 and
# removed in JAX v0.7.0"), and from 0.7.1 on gone without one ("module 'jax.sharding' has no
# attribute 'PositionalSharding'"): one failure, worded two ways.
import sys
import warnings

import jax

coord, n, pid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
jax.distributed.initialize(coord, n, pid)
assert jax.process_count() == n, jax.process_count()
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    sharding = jax.sharding.PositionalSharding
print(f"process {pid}: ok jax {jax.__version__} {sharding.__name__}", flush=True)
