"""Debian's chromium run headless, as the browser checks (html_browser_check.py,
broken_night_check.py) drive it: found on PATH or the check skips; its profile kept in the check's
work folder."""
import shutil
import subprocess


def find_chromium():
    """The chromium binary, or None after printing why the check skips."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        print("SKIP: chromium is not installed (apt-get install -y chromium)")
    return browser


def headless_command(browser, work, *flags):
    """chromium's command line: headless, no sandbox, no GPU, its profile under work, plus flags."""
    return [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            f"--user-data-dir={work}/profile", *flags]


def dump_dom(command, page, *flags):
    """The DOM chromium built for page (a file:// URL)."""
    return subprocess.run(command + [*flags, "--dump-dom", page], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True, timeout=120).stdout


def screenshot(command, page, path, *flags):
    """Writes chromium's screenshot of page to path."""
    subprocess.run(command + [f"--screenshot={path}", *flags, page], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=120)
