"""The app's own command line is read without the subcommands' parsers (a few ms
before the window's first paint), to the same result as the whole parser."""

from __future__ import annotations

import pytest

from client.cli import app_only_arguments, build_parser

APP_LINES = [
    [],
    ["--url", "http://127.0.0.1:11434"],
    ["--url=http://h:1", "--api", "openai", "--model", "qwen2.5:0.5b", "--lang", "zh_CN"],
    ["--mod", "m"],  # an abbreviation, as argparse allows
    ["--install-desktop-entry"],
]
OTHER_LINES = [
    ["chat", "hello"],  # a command
    ["--help"],
    ["-h"],
    ["chta"],  # a mistyped command: the whole parser names the choices
    ["--api", "nonsense"],  # a bad choice: the whole parser says which
    ["--url"],  # no value
    ["--install-desktop-entry", "--uninstall-desktop-entry"],  # not together
    ["--colour"],  # unknown
]


@pytest.mark.parametrize("words", APP_LINES, ids=" ".join)
def test_the_apps_options_read_as_the_whole_parser_reads_them(words: list[str]) -> None:
    assert app_only_arguments(words) == build_parser("").parse_args(words)


@pytest.mark.parametrize("words", OTHER_LINES, ids=" ".join)
def test_anything_else_goes_to_the_whole_parser(words: list[str]) -> None:
    assert app_only_arguments(words) is None
