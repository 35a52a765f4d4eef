# What a repro needs, checked before it runs: a missing need prints "skip: <reason>" and exits
# 0, which the scenarios' skip rule turns into a skip with that reason (never a fail).
import sys


def skip(reason):
    print(f"skip: {reason}", flush=True)
    sys.exit(0)


def import_jax():
    try:
        import jax  # noqa: F401
    except Exception as e:  # ImportError, or a broken install raising anything
        skip(f"jax is not importable by {sys.executable}: {type(e).__name__}: {e}")
    import jax
    return jax


def need_module(name, what):
    try:
        __import__(name)
    except Exception as e:
        skip(f"needs {what} ({name}): {type(e).__name__}: {e}")


def need_gpus(jax, at_least):
    platform = jax.default_backend()
    if platform != "gpu":
        skip(f"needs CUDA GPUs, jax's backend is {platform}")
    n = jax.device_count()
    if n < at_least:
        skip(f"need at least {at_least} devices, have {n}")
    return n


def need_compute_capability(jax, major, what):
    cc = getattr(jax.devices()[0], "compute_capability", None)
    if cc is None:
        return
    if int(str(cc).split(".")[0]) < major:
        skip(f"{what} needs compute capability >= {major}.0, have {cc}")
