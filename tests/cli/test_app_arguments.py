"""The app's own command line is read without the subcommands' parsers (a few ms
before the window's first paint), to the same result as the whole parser."""

from __future__ import annotations

import pytest

from client.cli import app_only_arguments, build_parser, main, options_after_command

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


def _command_args(words: list[str]):
    from client.cli import _named_command

    moved_words, _ = options_after_command(words)
    return build_parser(_named_command(moved_words)).parse_args(moved_words)


def test_the_apps_options_before_a_command_are_the_commands() -> None:
    """`tachy --url X bench` measured the local engine: bench's own --url default
    replaced the address written before the command, without a word."""
    args = _command_args(["--url", "http://h:1", "--api=openai", "--mod", "m", "bench", "-n", "3"])
    assert (args.command, args.url, args.api, args.model, args.n) == (
        "bench",
        "http://h:1",
        "openai",
        "m",
        3,
    )


def test_an_option_written_after_the_command_still_wins() -> None:
    args = _command_args(["--url", "http://before:1", "chat", "--url", "http://after:2", "hi"])
    assert args.url == "http://after:2" and args.text == "hi"


def test_the_apps_own_options_and_lines_without_a_command_stay_as_they_are() -> None:
    words = ["--lang", "zh_CN", "--url", "http://h:1"]
    assert options_after_command(words) == (words, [])
    moved, carried = options_after_command(["--lang", "zh_CN", "--url", "http://h:1", "detect"])
    assert moved == [*words, "detect", "--url", "http://h:1"] and carried == ["--url"]


def test_a_command_without_the_option_says_so(capsys) -> None:
    assert main(["--url", "http://127.0.0.1:9", "lab"]) == 2
    assert "tachy lab does not take --url" in capsys.readouterr().err


def test_help_says_what_tachy_is_not_what_the_module_may_import(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "May import" not in out and "client.ui" not in out
    assert "desktop app" in out
