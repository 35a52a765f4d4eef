#!/usr/bin/env python3
"""Builds the wheels of a toy framework, `toyjax` 0.1.0 to 0.8.0, for the bisect tutorial
(docs/tutorials/bisect-wheels.md). Like JAX 0.6.0, release 0.6.0 removes the top-level
`tree_map` (use `toyjax.tree.map`). Pure Python, no network: each wheel is written directly.

    python3 docs/tutorials/files/make_wheels.py DIR
"""
import base64
import hashlib
import pathlib
import sys
import zipfile

RELEASES = ["0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.7.0", "0.8.0"]
REMOVED_IN = "0.6.0"

CODE = '''"""toyjax {version}: a toy framework for gpuharness's bisect tutorial."""
__version__ = "{version}"


class tree:
    @staticmethod
    def map(f, value):
        if isinstance(value, dict):
            return {{k: tree.map(f, v) for k, v in value.items()}}
        if isinstance(value, (list, tuple)):
            return type(value)(tree.map(f, v) for v in value)
        return f(value)

{tree_map}'''

TREE_MAP = '''
def tree_map(f, value):
    return tree.map(f, value)
'''

REMOVED = '''
def __getattr__(name):
    if name == "tree_map":
        raise AttributeError("toyjax.tree_map was removed in toyjax {removed}: use toyjax.tree.map")
    raise AttributeError(name)
'''


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}\n"


def write_wheel(out, version):
    old = tuple(map(int, version.split("."))) < tuple(map(int, REMOVED_IN.split(".")))
    code = CODE.format(version=version, tree_map=TREE_MAP if old else REMOVED.format(removed=REMOVED_IN))
    info = f"toyjax-{version}.dist-info"
    files = {
        "toyjax/__init__.py": code.encode(),
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: toyjax\nVersion: {version}\n".encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: make_wheels.py\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = "".join(record_line(n, d) for n, d in files.items()) + f"{info}/RECORD,,\n"
    path = out / f"toyjax-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as whl:
        for name, data in files.items():
            whl.writestr(name, data)
        whl.writestr(f"{info}/RECORD", record)
    return path


def main():
    out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "wheels")
    out.mkdir(parents=True, exist_ok=True)
    for version in RELEASES:
        print(write_wheel(out, version).name)


if __name__ == "__main__":
    main()
