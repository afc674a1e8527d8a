"""The `tachy` command: the desktop app by default, plus chat, bench, models, lab ...
May import: anything of client (the top layer); Qt only through client.ui."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from types import ModuleType

from client import __version__

# subcommand -> module in client.cli that defines add_arguments(parser) and run(args) -> int
SUBCOMMANDS = {
    "chat": ("chat", "Send one message and stream the answer to the terminal"),
    "bench": ("bench", "Measure TTFT, TPOT and tokens/s against a server"),
    "models": ("models", "List a server's models"),
    "detect": ("detect", "Find local LLM servers and tell which API they speak"),
    "serve-local": ("serve_local", "Run the embedded local engine (SmolLM2-135M)"),
    "lab": ("lab", "Run the latency lab: a simulated server or a chaos proxy"),
    "metrics": ("metrics", "Print stored per-request latency metrics"),
    "kb": ("kb", "The knowledge base of your own documents: add, list, remove, search"),
    "doctor": ("doctor", "Check this machine: data folder, history, keyring, engine, display"),
}
# What `tachy --help` says first (the module's docstring is for the code's readers).
DESCRIPTION = (
    "Tachy: a chat client for local LLM servers that shows every wait. Without a command "
    "it opens the desktop app; the commands below work in a terminal."
)
EXIT_BAD_ADDRESS = 2  # like argparse's own exit for bad arguments
# The app's options a command may take too: written before it, they are its own.
CARRIED_OPTIONS = ("url", "api", "model")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; with `only`, just that subcommand's own arguments are
    read from its module (the others list their names and help), so launching the app
    imports no subcommand (they pull in httpx, aiohttp, the lab: ~0.4 s before paint)."""
    parser = argparse.ArgumentParser(prog="tachy", description=DESCRIPTION)
    _add_app_arguments(parser)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        sub = commands.add_parser(name, help=help_text, description=help_text)
        if only is None or only == name:
            _command_module(module_name).add_arguments(sub)
    return parser


def app_only_arguments(words: list[str]) -> argparse.Namespace | None:
    """The arguments when the command line holds only the app's options, read without
    the subcommands' parsers (3.5 ms before the window's first paint). None for anything
    else (a command, --help, a mistake): the whole parser reads it and says so."""
    if _named_command(words) or {"-h", "--help"} & set(words):
        return None
    try:
        args, rest = _app_parser().parse_known_args(words)
    except argparse.ArgumentError:
        return None
    if rest:
        return None
    args.command = None
    return args


def _app_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tachy", add_help=False, exit_on_error=False)
    _add_app_arguments(parser)
    return parser


def _add_app_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", help="server URL to open with (the app)")
    parser.add_argument("--api", choices=["auto", "ollama", "openai"], default="auto")
    parser.add_argument("--model", help="model to select (the app)")
    parser.add_argument("--lang", help="the window's language, e.g. zh_CN or en (the app)")
    parser.add_argument("--version", action="version", version=f"tachy {__version__}")
    entry = parser.add_mutually_exclusive_group()
    entry.add_argument(
        "--install-desktop-entry",
        action="store_true",
        help="add Tachy to the desktop's application menu (for pip installs)",
    )
    entry.add_argument(
        "--uninstall-desktop-entry", action="store_true", help="remove that menu entry"
    )


def _check_address(args: argparse.Namespace) -> str:
    """Checks --url before a command starts anything: '' when it is a server address
    (args.url is then its normalized form), else the sentence saying why not."""
    from client.backends.address import server_url
    from client.backends.errors import InvalidServerAddress

    try:
        args.url = server_url(args.url)
    except InvalidServerAddress as error:
        return error.user_message
    return ""


def _command_module(module_name: str) -> ModuleType:
    return importlib.import_module(f"client.cli.{module_name}")


def _named_command(argv: Sequence[str]) -> str:
    """The subcommand a command line names ("" for none: the app)."""
    return next((word for word in argv if word in SUBCOMMANDS), "")


def options_after_command(words: list[str]) -> tuple[list[str], list[str]]:
    """`tachy --url X bench` reads as `tachy bench --url X`: left before the command,
    the command's own default would replace the address without a word (bench then
    measured the local engine). One written after the command still wins. Returns the
    words and the options carried."""
    command = _named_command(words)
    if not command:
        return words, []
    at = words.index(command)
    parser = _app_parser()
    try:
        before, _ = parser.parse_known_args(words[:at])
    except argparse.ArgumentError:
        return words, []  # the whole parser says what is wrong
    given = [d for d in CARRIED_OPTIONS if getattr(before, d) != parser.get_default(d)]
    carried = [word for d in given for word in (f"--{d}", getattr(before, d))]
    return [*words[: at + 1], *carried, *words[at + 1 :]], [f"--{d}" for d in given]


def refused_option(command: str, moved: list[str]) -> str:
    """The sentence when `command` does not take an app option written before it
    ("" when it takes them all)."""
    if not moved:
        return ""
    probe = argparse.ArgumentParser()
    _command_module(SUBCOMMANDS[command][0]).add_arguments(probe)
    for option in moved:
        if not _takes(probe, option):
            return f"tachy {command} does not take {option} (it is the app's option)."
    return ""


def _takes(parser: argparse.ArgumentParser, option: str) -> bool:
    try:
        parser.add_argument(option)  # argparse refuses an option string it already has
    except argparse.ArgumentError:
        return True
    return False


def main(argv: Sequence[str] | None = None) -> int:
    words, moved = options_after_command(list(sys.argv[1:] if argv is None else argv))
    refused = refused_option(_named_command(words), moved)
    if refused:
        print(f"tachy: {refused}", file=sys.stderr)
        return EXIT_BAD_ADDRESS
    args = app_only_arguments(words) or build_parser(_named_command(words)).parse_args(words)
    if args.install_desktop_entry or args.uninstall_desktop_entry:
        from client.cli import desktop_entry

        return desktop_entry.run(install_it=args.install_desktop_entry)
    if args.command is None:
        from client.cli import app

        if getattr(sys, "frozen", False):  # (only a bundle adds itself: no imports otherwise)
            from client.cli import desktop_entry

            desktop_entry.install_on_first_run()
        return app.run(args)
    module_name = SUBCOMMANDS[args.command][0]
    if getattr(args, "url", None) is not None:
        refused = _check_address(args)
        if refused:
            print(refused, file=sys.stderr)
            return EXIT_BAD_ADDRESS
    try:
        code = int(_command_module(module_name).run(args))
    except KeyboardInterrupt:
        code = 130
    if code == 130 and argv is None and args.command == "chat":
        _exit_at_once(code)
    return code


def _exit_at_once(code: int) -> None:
    """Stopped by Ctrl-C, with everything closed and said: end now. The interpreter's
    own teardown of the MCP SDK's modules alone takes a second on a busy machine."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
