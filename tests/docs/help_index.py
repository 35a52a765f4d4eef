"""The binary's own account of its commands: `gpuharness --help` lists them, `gpuharness help CMD`
describes one, and a command with subcommands (history) lists those in its help. Read once per
test run; the docs tests check the pages against it.
"""
import re
import subprocess

FLAG_RE = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)")


def _run(binary, *args):
    proc = subprocess.run([binary, *args], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    return proc.returncode, proc.stdout + proc.stderr


def _section(text, titles):
    """The indented lines under the first heading in `titles` ("commands:", "SUBCOMMANDS:")."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip().lower().rstrip(":") in titles:
            out = []
            for follow in lines[i + 1:]:
                if follow and not follow[0].isspace():
                    break
                if follow.strip():
                    out.append(follow.strip())
            return out
    return []


class HelpIndex:
    """commands: name -> summary; help_text(path) for ("sweep",) or ("history", "flips")."""

    def __init__(self, binary):
        self.binary = binary
        rc, self.top = _run(binary, "--help")
        if rc != 0:
            raise RuntimeError(f"{binary} --help exited {rc}: {self.top}")
        self.commands = {}
        for line in _section(self.top, {"commands"}):
            name, _, summary = line.partition(" ")
            self.commands[name] = summary.strip()
        self._help = {}

    def help_text(self, path):
        path = tuple(path)
        if path not in self._help:
            if len(path) == 1 and path[0] == "help":
                self._help[path] = self.top
            else:
                rc, text = _run(self.binary, *path, "--help")
                if rc != 0:
                    raise RuntimeError(f"gpuharness {' '.join(path)} --help exited {rc}: {text}")
                self._help[path] = text
        return self._help[path]

    def subcommands(self, command):
        """The subcommands a command's help lists (CLI11's SUBCOMMANDS section), in order."""
        if command not in self.commands or command == "help":
            return []
        names = []
        for line in _section(self.help_text((command,)), {"subcommands"}):
            names.append(line.split()[0])
        return names

    def flags(self, path):
        """Every flag the help of `path` names, and its parents' (history's --db is every
        history subcommand's)."""
        found = set()
        for n in range(1, len(path) + 1):
            found |= set(FLAG_RE.findall(self.help_text(path[:n])))
        return found

    def every_help(self):
        """(path, text) of the top help and every command's and subcommand's help."""
        yield ("--help",), self.top
        for command in self.commands:
            if command == "help":
                continue
            yield (command,), self.help_text((command,))
            for sub in self.subcommands(command):
                yield (command, sub), self.help_text((command, sub))
