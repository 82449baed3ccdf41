"""The command line, cutechess-cli style: ``-engine cmd=... name=... option.Hash=64 -each tc=10+0.1``.

Options take the words that follow them up to the next option; engine and
``-each`` settings are ``key=value`` words. Double dashes work too
(``--resume``), so the line reads like other Python tools as well.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from tournaments.config import (
    PGN_EXTRAS,
    PGN_NOTATIONS,
    AdjudicationConfig,
    ConfigError,
    EngineConfig,
    SprtConfig,
    TournamentConfig,
    command_name,
    default_config,
    load_config_file,
    split_command,
)
from tournaments.install import install_hint
from tournaments.statecheck import run_digest
from tournaments.timecontrol import TimeControl


@dataclass(frozen=True)
class OptionSpec:
    """One command-line option: its names (the first is shown), its arguments and its help text.

    ``OPTION_SPECS`` is the only list of options: the parser accepts exactly
    these names and ``USAGE`` is printed from it, so the two cannot drift apart.
    """

    names: tuple[str, ...]
    args: str
    help: str


OPTION_SPECS: tuple[OptionSpec, ...] = (
    OptionSpec(("engine",), "KEY=VALUE ...", "an engine; keys: cmd= name= proto=uci|xboard dir= arg= (repeatable)\n"
               "args=\"A B\" option.NAME=VALUE tc= st= nodes= depth= (or plies=) timemargin=MS\n"
               "restart=off"),
    OptionSpec(("each",), "KEY=VALUE ...", "settings for every engine (same keys); an -engine's own keys win,\n"
               "but -each overrides engines read from -config"),
    OptionSpec(("config",), "FILE | file=FILE [outname=STATE]", "a JSON config file (command-line options override\n"
               "it); outname= names the resume state file (as -state)"),
    OptionSpec(("tournament",), "round-robin|gauntlet", "the kind of tournament (roundrobin is accepted)"),
    OptionSpec(("games",), "N", "games per encounter per round (default 2); two games in a row of an\n"
               "encounter form a pair (one opening, colours swapped), across rounds when N is odd"),
    OptionSpec(("rounds",), "N", "rounds (default 1)"),
    OptionSpec(("repeat",), "[2]", "accepted for cutechess-cli and fastchess users: every opening is always\n"
               "played twice, colours swapped"),
    OptionSpec(("noswap",), "", "do not swap colours: the first engine of an encounter always has White"),
    OptionSpec(("reverse",), "", "the second engine of an encounter has White in the first game of a pair"),
    OptionSpec(("concurrency",), "N", "games played at once with the local backend (default 1)"),
    OptionSpec(("backend",), "local|dask ADDR [scaletc]",
               "local (the default) plays on this machine; dask tcp://host:8786 plays on a Dask\n"
               f"cluster, dask local:N on a LocalCluster of N worker processes here\n"
               f"({install_hint('cluster')}); scaletc scales each worker's clocks by its measured speed"),
    OptionSpec(("openings",), "file=F [format=epd|pgn] [order=sequential|random] [plies=N] [start=N] [policy=P]",
               "EPD positions a few plies deep are played as moves from the start position (the PGN\n"
               "starts at the position, with FEN and SetUp tags, as fastchess writes it);\n"
               "policy=default (a new opening each pair of games), encounter (a new opening\n"
               "for each pairing of players) or round (one opening for every game of a round)"),
    OptionSpec(("variant",), "standard|fischerandom", "Chess960 with fischerandom: a Chess960 book, or the 960\n"
               "start positions in order (shuffled with order=random) when no book is given"),
    OptionSpec(("srand", "seed"), "N", "seed for shuffled openings"),
    OptionSpec(("draw",), "movenumber=N movecount=N score=CP", "draw adjudication by score"),
    OptionSpec(("resign",), "movecount=N score=CP [twosided=true]", "resign adjudication by score"),
    OptionSpec(("maxmoves",), "N", "adjudicate a draw after N moves"),
    OptionSpec(("tb",), "PATH[:PATH...]", "adjudicate by Syzygy tablebases in PATH (python-chess's chess.syzygy)"),
    OptionSpec(("tbpieces",), "N", "only positions with at most N pieces (default 7)"),
    OptionSpec(("tbignore50",), "", "a tablebase win counts even when the fifty-move rule would save the loser"),
    OptionSpec(("sprt",), "elo0=E0 elo1=E1 [alpha=0.05] [beta=0.05] [model=normalized|logistic]",
               "an SPRT between the two engines (or positionally: -sprt E0 E1 ALPHA BETA)"),
    OptionSpec(("pgnout",), "FILE [min] [fi] | file=FILE [KEY=VALUE ...]",
               "append finished games to FILE (min: no comments; fi: accepted, only finished\n"
               "games are ever written); fastchess's keys: min= append= notation=san|lan|uci, and\n"
               "nodes= seldepth= nps= hashfull= tbhits= pv= timeleft= latency= (=true adds the\n"
               "field to each move's comment)"),
    OptionSpec(("epdout",), "FILE | file=FILE [append=true|false]", "append the final position of each game to\n"
               "FILE (EPD)"),
    OptionSpec(("log",), "FILE | file=FILE [KEY=VALUE ...]", "append the whole engine dialogue of each game to\n"
               "FILE; fastchess's append= level= engine= realtime= are accepted"),
    OptionSpec(("state",), "FILE", "resume state (default: PGNFILE.state.json)"),
    OptionSpec(("resume",), "[FILE]", "continue the interrupted run recorded in the state file"),
    OptionSpec(("recover",), "[on|off]", "restart engines that crash or stall and play on; without it (the\n"
               "default, as in fastchess and cutechess-cli) the run stops after such a game\n"
               "(-resume continues it)"),
    OptionSpec(("wait",), "MS", "milliseconds to wait between two games of the same engines"),
    OptionSpec(("plot",), "FILE.png", "Elo estimate and error bar against games played, and the SPRT's LLR\n"
               "(needs matplotlib)"),
    OptionSpec(("web",), "PORT", "serve a read-only live page of the run at http://127.0.0.1:PORT/ (standings,\n"
               "Elo, SPRT, boards in progress, finished games' PGN; 0 picks a free port;\n"
               f"{install_hint('web')})"),
    OptionSpec(("output",), "format=cutechess|fastchess", "the text of progress lines and results, for tools\n"
               "that parse one or the other"),
    OptionSpec(("event",), "NAME", "PGN Event tag"),
    OptionSpec(("site",), "NAME", "PGN Site tag"),
    OptionSpec(("startup-timeout",), "S", "seconds allowed for uci/isready answers (default 10)"),
    OptionSpec(("hang-timeout",), "S", "seconds allowed per move when only nodes=/depth= bound it (default 60)"),
    OptionSpec(("report-every", "ratinginterval"), "N", "games between progress lines when stderr is not a terminal"),
    OptionSpec(("debug",), "", "show python-chess's engine log (odd lines, unparsable info)"),
    OptionSpec(("help", "h"), "", "print this help"),
)

USAGE_TAIL = """\
With no engines, Kestrel alpha-beta plays Kestrel MCTS on built-in openings.

time controls: tc=40/60+0.6 (moves/seconds+increment), tc=10+0.1, tc=5, tc=inf;
  st=1 (seconds per move), nodes=10000, depth=8; timemargin=50 (milliseconds a side may overstep
  its clock, as in fastchess and cutechess-cli; timemargin=50ms and timemargin=0.05s say the same)
"""


def usage() -> str:
    """The help text, generated from ``OPTION_SPECS``."""
    lines = ["usage: python -m tournaments [options]   (or: kestrel-tournament [options])", ""]
    for spec in OPTION_SPECS:
        head = " ".join(f"-{n}" for n in spec.names[:1]) + (f" {spec.args}" if spec.args else "")
        aliases = f" (also -{', -'.join(spec.names[1:])})" if len(spec.names) > 1 else ""
        help_lines = (spec.help + aliases).split("\n")
        if len(head) <= 24:
            lines.append(f"  {head:<24}{help_lines[0]}")
            rest = help_lines[1:]
        else:
            lines.append(f"  {head}")
            rest = help_lines
        lines += [f"  {'':<24}{text}" for text in rest]
    return "\n".join(lines) + "\n\n" + USAGE_TAIL


USAGE = usage()
OPTIONS = {name for spec in OPTION_SPECS for name in spec.names}
TOURNAMENT_KINDS = {"round-robin": "round-robin", "roundrobin": "round-robin", "gauntlet": "gauntlet"}
TC_KEYS = ("tc", "st", "nodes", "depth", "timemargin")
# fastchess's spellings of engine keys: plies= is depth=.
ENGINE_KEY_ALIASES = {"plies": "depth"}


class HelpRequested(Exception):
    pass


@dataclass
class CommandLine:
    """The parsed command line, before it is merged with a config file."""

    options: list[tuple[str, list[str]]] = field(default_factory=list)

    def get(self, name: str) -> list[str] | None:
        found = [values for key, values in self.options if key == name]
        return found[-1] if found else None

    def all(self, name: str) -> list[list[str]]:
        return [values for key, values in self.options if key == name]

    def has(self, name: str) -> bool:
        return any(key == name for key, _ in self.options)


def split_options(argv: list[str]) -> CommandLine:
    line = CommandLine()
    for word in argv:
        name = word.lstrip("-")
        if word.startswith("-") and name in OPTIONS:
            line.options.append((name, []))
        elif not line.options:
            raise ConfigError(f"unexpected {word!r} before any option (see -help)")
        else:
            line.options[-1][1].append(word)
    if line.has("h") or line.has("help"):
        raise HelpRequested()
    return line


def key_values(words: list[str], what: str) -> list[tuple[str, str]]:
    pairs = []
    for word in words:
        if "=" not in word:
            raise ConfigError(f"{what}: expected key=value, got {word!r}")
        key, value = word.split("=", 1)
        pairs.append((key, value))
    return pairs


def _single(line: CommandLine, name: str) -> str | None:
    values = line.get(name)
    if values is None:
        return None
    if len(values) != 1:
        raise ConfigError(f"-{name} takes one value")
    return values[0]


def _number(text: str | None, what: str, kind: type = int) -> float | None:
    if text is None:
        return None
    try:
        value: float = kind(text)
        return value
    except ValueError:
        raise ConfigError(f"{what}: not a number: {text!r}") from None


def _timemargin(text: str | None, name: str) -> str | None:
    """Seconds from ``timemargin=``: milliseconds, as fastchess and cutechess-cli count them.

    ``50ms`` and ``0.05s`` name their unit. A bare number must be whole
    milliseconds (fastchess refuses anything else too): ``timemargin=0.05``, this
    runner's old seconds, is refused rather than read as 0.05 ms.
    """
    if text is None:
        return None
    what = f"engine {name!r}: timemargin"
    if text.endswith("ms"):
        return str((_number(text[:-2], what, float) or 0.0) / 1000.0)
    if text.endswith("s"):
        return str(_number(text[:-1], what, float))
    if not text.isdigit():
        value = _number(text, what, float) or 0.0
        raise ConfigError(f"{what}={text}: a bare timemargin counts milliseconds (whole numbers, as in fastchess "
                          f"and cutechess-cli): write timemargin={value * 1000:g} for {value:g} s, or give the "
                          f"unit (timemargin={text}s or {text}ms)")
    return str(int(text) / 1000.0)


def _sort_keys(pairs: list[tuple[str, str]], what: str) -> tuple[dict[str, str], dict[str, str], list[str]]:
    """Engine keys split into settings (cmd, name, time control...), ``option.`` values and ``arg=`` words."""
    settings: dict[str, str] = {}
    options: dict[str, str] = {}
    args: list[str] = []
    for key, value in pairs:
        key = ENGINE_KEY_ALIASES.get(key, key)
        if key.startswith("option."):
            options[key[len("option."):]] = value
        elif key == "arg":
            args.append(value)
        elif key == "args":  # fastchess: several arguments in one value
            args += _split(value, what)
        elif key == "restart":
            # Engines are kept between games, which is fastchess's restart=off.
            if value != "off":
                raise ConfigError(f"{what}: restart={value} is not supported (engines are kept between games, "
                                  f"as restart=off; a crashed engine is restarted with -recover)")
        elif key in ("cmd", "name", "proto", "dir") + TC_KEYS:
            settings[key] = value
        else:
            raise ConfigError(f"{what}: unknown key {key!r}")
    return settings, options, args


def _time_control(settings: dict[str, str], name: str) -> TimeControl:
    try:
        return TimeControl.parse(settings.get("tc"), st=settings.get("st"), nodes=settings.get("nodes"),
                                 depth=settings.get("depth"), margin=_timemargin(settings.get("timemargin"), name))
    except ValueError as err:
        raise ConfigError(f"engine {name!r}: {err}") from None


def _split(command: str, what: str) -> list[str]:
    try:
        return split_command(command)
    except ValueError as err:  # an unclosed quote
        raise ConfigError(f"{what}: cannot split {command!r}: {err}") from None


def engine_from_words(pairs: list[tuple[str, str]], each: list[tuple[str, str]], number: int) -> EngineConfig:
    """One ``-engine``, its own keys taking precedence over ``-each``."""
    settings, options, args = _sort_keys(each + pairs, f"engine {number}")
    if "cmd" not in settings:
        raise ConfigError(f"engine {number}: no cmd=")
    command = _split(settings["cmd"], f"engine {number}") + args
    if not command:
        raise ConfigError(f"engine {number}: empty cmd=")
    name = settings.get("name") or command_name(command)
    if not any(k in settings for k in TC_KEYS[:4]):
        raise ConfigError(f"engine {name!r}: no time control (give -each tc=10+0.1, or st=, nodes=, depth=)")
    return EngineConfig(name=name, command=command, protocol=settings.get("proto", "uci"), options=options,
                        tc=_time_control(settings, name), workdir=settings.get("dir"))


def apply_each(engine: EngineConfig, each: list[tuple[str, str]]) -> EngineConfig:
    """``engine`` (from a config file, or the default run) with the ``-each`` settings laid over it."""
    if not each:
        return engine
    settings, options, args = _sort_keys(each, "-each")
    command = (_split(settings["cmd"], "-each") if "cmd" in settings else list(engine.command)) + args
    name = settings.get("name", engine.name)
    tc = engine.tc
    if any(k in settings for k in TC_KEYS[:4]):
        tc = _time_control(settings, name)
        if "timemargin" not in settings:
            tc = dataclasses.replace(tc, margin=engine.tc.margin)
    elif "timemargin" in settings:
        tc = dataclasses.replace(tc, margin=_time_control(settings, name).margin)
    return dataclasses.replace(engine, name=name, command=command, options={**engine.options, **options}, tc=tc,
                               protocol=settings.get("proto", engine.protocol),
                               workdir=settings.get("dir", engine.workdir))


def _adjudication(line: CommandLine, adj: AdjudicationConfig) -> None:
    draw = line.get("draw")
    if draw is not None:
        for key, value in key_values(draw, "-draw"):
            if key not in ("movenumber", "movecount", "score"):
                raise ConfigError(f"-draw: unknown key {key!r}")
            setattr(adj, f"draw_{key}", int(_number(value, "-draw")))  # type: ignore[arg-type]
        if adj.draw_movecount is None or adj.draw_score is None:
            raise ConfigError("-draw needs movecount= and score=")
    resign = line.get("resign")
    if resign is not None:
        for key, value in key_values(resign, "-resign"):
            if key == "twosided":
                adj.resign_twosided = value.lower() in ("true", "1", "on", "yes")
            elif key in ("movecount", "score"):
                setattr(adj, f"resign_{key}", int(_number(value, "-resign")))  # type: ignore[arg-type]
            else:
                raise ConfigError(f"-resign: unknown key {key!r}")
        if adj.resign_movecount is None or adj.resign_score is None:
            raise ConfigError("-resign needs movecount= and score=")
    maxmoves = _single(line, "maxmoves")
    if maxmoves is not None:
        adj.maxmoves = int(_number(maxmoves, "-maxmoves"))  # type: ignore[arg-type]


def _sprt(words: list[str]) -> SprtConfig:
    if words and all("=" not in w for w in words):
        names = ["elo0", "elo1", "alpha", "beta", "model"][:len(words)]
        if len(words) > len(names):
            raise ConfigError("-sprt takes at most five values: ELO0 ELO1 ALPHA BETA MODEL")
        pairs = list(zip(names, words, strict=True))
    else:
        pairs = key_values(words, "-sprt")
    values: dict[str, object] = {}
    for key, value in pairs:
        if key == "model":
            values[key] = value
        elif key in ("elo0", "elo1", "alpha", "beta"):
            values[key] = _number(value, "-sprt", float)
        else:
            raise ConfigError(f"-sprt: unknown key {key!r}")
    if "elo0" not in values or "elo1" not in values:
        raise ConfigError("-sprt needs elo0 and elo1")
    return SprtConfig(**values)  # type: ignore[arg-type]


def backend_option(line: CommandLine) -> tuple[str, str | None, bool] | None:
    """``-backend local`` or ``-backend dask ADDR [scaletc]`` as (backend, scheduler, scale_tc), or None."""
    words = line.get("backend")
    if words is None:
        return None
    if words == ["local"]:
        return "local", None, False
    if len(words) in (2, 3) and words[0] == "dask" and words[2:] in ([], ["scaletc"]):
        return "dask", words[1], len(words) == 3
    raise ConfigError("-backend takes local, or dask and a scheduler address (tcp://host:8786 or local:N), "
                      "optionally followed by scaletc")


def _flag(value: str, what: str = "") -> bool:
    if value.lower() in ("true", "1", "on", "yes"):
        return True
    if value.lower() in ("false", "0", "off", "no"):
        return False
    raise ConfigError(f"{what}{': ' if what else ''}expected true or false, got {value!r}")


LOG_LEVELS = ("trace", "info", "warn", "err", "fatal")
PGNOUT_KEYS = ("min", "append", "notation") + PGN_EXTRAS


def file_option(words: list[str], flag: str, keys: tuple[str, ...],
                bare: tuple[str, ...] = ()) -> tuple[str | None, dict[str, str], list[str]]:
    """cutechess-cli's ``-flag FILE [WORD ...]`` or fastchess's ``-flag file=FILE KEY=VALUE ...``.

    Returns the file, the ``KEY=VALUE`` settings and the bare words after the
    file (only those in ``bare``); any other word or key is refused, naming the
    flag and the key, so that ``file=F`` can never become a file called ``file=F``.
    """
    path: str | None = None
    values: dict[str, str] = {}
    flags: list[str] = []
    known = ", ".join(("file",) + keys)
    for i, word in enumerate(words):
        key, eq, value = word.partition("=")
        if not eq:
            if i == 0:
                path = word
            elif word in bare:
                flags.append(word)
            else:
                raise ConfigError(f"-{flag}: unexpected {word!r} (a file name first, then "
                                  f"{' or '.join(bare) + ' or ' if bare else ''}key=value with keys {known})")
        elif key == "file":
            path = value
        elif key in keys:
            values[key] = value
        else:
            raise ConfigError(f"-{flag}: unknown key {key!r} (keys: {known})")
    return path, values, flags


def _pgnout(words: list[str], config: TournamentConfig) -> None:
    """cutechess-cli's ``-pgnout FILE [min] [fi]`` or fastchess's ``-pgnout file=FILE nodes=true ...``."""
    if any(w.startswith("match_line=") for w in words):
        raise ConfigError("-pgnout: match_line= is not supported (engine output lines are not kept per move); "
                          "-log records the whole dialogue")
    path, values, flags = file_option(words, "pgnout", PGNOUT_KEYS, ("min", "fi"))
    if path is None:
        raise ConfigError("-pgnout needs a file name (FILE or file=FILE)")
    notation = values.get("notation", "san")
    if notation not in PGN_NOTATIONS:
        raise ConfigError(f"-pgnout: notation={notation} is not one of {', '.join(PGN_NOTATIONS)}")
    config.pgnout, config.pgn_notation = path, notation
    config.pgn_min = "min" in flags or _flag(values.get("min", "false"), "-pgnout min")
    config.pgn_append = _flag(values.get("append", "true"), "-pgnout append")
    # Written in fastchess's order, whatever the order on the command line.
    config.pgn_extras = [key for key in PGN_EXTRAS if _flag(values.get(key, "false"), f"-pgnout {key}")]


def _epdout(words: list[str], config: TournamentConfig) -> None:
    """``-epdout FILE`` (cutechess-cli) or ``-epdout file=FILE [append=false]`` (fastchess)."""
    path, values, _ = file_option(words, "epdout", ("append",))
    if path is None:
        raise ConfigError("-epdout needs a file name (FILE or file=FILE)")
    config.epdout = path
    config.epd_append = _flag(values.get("append", "true"), "-epdout append")


def _log(words: list[str], config: TournamentConfig) -> None:
    """``-log FILE`` or fastchess's ``-log file=FILE level=... engine=true ...``.

    The file always holds the engine dialogue (fastchess's ``engine=true``);
    ``level=`` and ``realtime=`` are checked and accepted, having nothing else to
    filter or flush (each game is written whole when it ends).
    """
    path, values, _ = file_option(words, "log", ("level", "append", "compress", "realtime", "engine"))
    if path is None:
        raise ConfigError("-log needs a file name (FILE or file=FILE)")
    level = values.get("level", "warn")
    if level not in LOG_LEVELS:
        raise ConfigError(f"-log: level={level} is not one of {', '.join(LOG_LEVELS)}")
    for key in ("realtime", "engine"):
        _flag(values.get(key, "true"), f"-log {key}")
    if _flag(values.get("compress", "false"), "-log compress"):
        raise ConfigError("-log: compress=true is not supported (the log is plain text)")
    config.log = path
    config.log_append = _flag(values.get("append", "true"), "-log append")


def config_option(words: list[str]) -> tuple[str | None, str | None]:
    """``-config FILE`` or fastchess's ``-config file=FILE [outname=STATE] ...``: (config file, state file).

    fastchess's ``outname=`` names the file it saves the run to for resuming,
    which here is the state file. Kestrel's config files hold no results, so
    ``stats=`` has nothing to load or drop; ``discard=true`` is refused.
    """
    path, values, _ = file_option(words, "config", ("outname", "discard", "stats"))
    _flag(values.get("stats", "true"), "-config stats")
    if _flag(values.get("discard", "false"), "-config discard"):
        raise ConfigError("-config: discard=true is not supported (leave out file= to start without a config)")
    if path is None and "outname" not in values:
        raise ConfigError("-config needs a file (FILE or file=FILE) or outname=FILE")
    return path, values.get("outname")


def output_option(words: list[str]) -> str:
    """``-output format=fastchess`` (fastchess) or ``-output fastchess``."""
    if len(words) != 1:
        raise ConfigError("-output takes one value: format=cutechess or format=fastchess")
    key, eq, value = words[0].partition("=")
    if not eq:
        return words[0]
    if key != "format":
        raise ConfigError(f"-output: unknown key {key!r} (keys: format)")
    return value


def recover_option(line: CommandLine) -> bool | None:
    """``-recover`` (on), ``-recover on|off``, or None if not given."""
    recover = line.get("recover")
    if recover is None:
        return None
    if recover not in ([], ["on"], ["off"]):
        raise ConfigError("-recover takes no value, or on or off")
    return recover != ["off"]


def web_port(line: CommandLine) -> int | None:
    """``-web PORT``: the live page's port (0: any free one), or None without the option."""
    words = line.get("web")
    if words is None:
        return None
    if len(words) != 1 or not words[0].isdigit() or int(words[0]) > 65535:
        raise ConfigError("-web takes one port number (0 to 65535; 0 picks a free port)")
    return int(words[0])


def resume_path(line: CommandLine) -> str | None:
    """The state file ``-resume`` reads: ``-resume FILE``, ``-state``, ``-config outname=``, or the PGN's."""
    resume, state = line.get("resume"), line.get("state")
    if resume:
        return resume[0]
    if state:
        return state[0]
    config_words = line.get("config")
    if config_words is not None:
        outname = config_option(config_words)[1]
        if outname is not None:
            return outname
    pgn_words = line.get("pgnout")
    pgn = file_option(pgn_words, "pgnout", PGNOUT_KEYS, ("min", "fi"))[0] if pgn_words else None
    return pgn + ".state.json" if pgn else None


# What -resume takes from its command line besides the state file: where to find it, and the settings
# it may change (they decide neither which games are played nor how).
RESUME_OPTIONS = frozenset({"resume", "state", "pgnout", "config", "concurrency", "recover", "backend", "debug",
                            "web"})


def check_resume_line(line: CommandLine, config: dict[str, object], seed: int) -> None:
    """Raise ``ConfigError`` if ``-resume``'s line sets up a run other than the state's (``config``, ``seed``).

    The state file holds the run's settings; the rest of the line is read only
    to catch a change that would otherwise be ignored in silence. The line that
    started the run, repeated with ``-resume``, gives the same run and passes.
    """
    extra = sorted({name for name, _ in line.options} - RESUME_OPTIONS)
    if not extra:
        return
    try:
        built, _ = build_config(line)
    except ConfigError as err:
        raise ConfigError(f"-resume: {err}") from None
    if run_digest(built.to_dict(), seed) != run_digest(config, seed):
        raise ConfigError(f"-resume continues the run its state file records, and -{', -'.join(extra)} on the "
                          f"command line set up another one (another time control, -maxmoves, engine...): drop "
                          f"them to resume this run, or start a new run with another -pgnout or -state")


def build_config(line: CommandLine) -> tuple[TournamentConfig, bool]:
    """The run's configuration, and whether it is the built-in default (no engines given)."""
    config_words = line.get("config")
    config_file, outname = config_option(config_words) if config_words is not None else (None, None)
    config = load_config_file(config_file) if config_file else None
    each = key_values(sum(line.all("each"), []), "-each")
    engines = [engine_from_words(key_values(words, f"-engine {i}"), each, i)
               for i, words in enumerate(line.all("engine"), 1)]
    is_default = False
    if config is None:
        if engines:
            config = TournamentConfig(engines=engines)
        else:
            config = default_config()
            is_default = True
            config.engines = [apply_each(engine, each) for engine in config.engines]
    elif engines:
        config.engines = engines
    else:
        config.engines = [apply_each(engine, each) for engine in config.engines]

    kind = _single(line, "tournament")
    if kind is not None:
        config.kind = TOURNAMENT_KINDS.get(kind, kind)
    repeat = line.get("repeat")
    if repeat is not None and repeat not in ([], ["2"]):
        raise ConfigError("-repeat: this runner always plays each opening exactly twice, colours swapped "
                          "(-repeat or -repeat 2); -games sets how many games an encounter has")
    recover = recover_option(line)
    if recover is not None:
        config.recover = recover
    for name, attr in (("games", "games"), ("rounds", "rounds"), ("concurrency", "concurrency"),
                       ("report-every", "report_every"), ("ratinginterval", "report_every")):
        value = _single(line, name)
        if value is not None:
            setattr(config, attr, int(_number(value, f"-{name}")))  # type: ignore[arg-type]
    for name, attr in (("startup-timeout", "startup_timeout"), ("hang-timeout", "hang_timeout")):
        value = _single(line, name)
        if value is not None:
            setattr(config, attr, _number(value, f"-{name}", float))
    seed = _single(line, "srand") or _single(line, "seed")
    if seed is not None:
        config.seed = int(_number(seed, "-srand"))  # type: ignore[arg-type]
    openings = line.get("openings")
    if openings is not None:
        for key, value in key_values(openings, "-openings"):
            if key in ("file", "format", "order", "policy"):
                setattr(config.openings, key, value)
            elif key in ("plies", "start"):
                setattr(config.openings, key, int(_number(value, "-openings")))  # type: ignore[arg-type]
            else:
                raise ConfigError(f"-openings: unknown key {key!r}")
    _adjudication(line, config.adjudication)
    sprt = line.get("sprt")
    if sprt is not None:
        config.sprt = _sprt(sprt)
    pgnout = line.get("pgnout")
    if pgnout is not None:
        _pgnout(pgnout, config)
    backend = backend_option(line)
    if backend is not None:
        config.backend, config.scheduler, config.scale_tc = backend
    for name in ("noswap", "reverse", "tbignore50"):
        if line.get(name) not in (None, []):
            raise ConfigError(f"-{name} takes no value")
        if line.has(name):
            setattr(config, "tb_ignore50" if name == "tbignore50" else name, True)
    for name, attr in (("wait", "wait_ms"), ("tbpieces", "tb_pieces")):
        value = _single(line, name)
        if value is not None:
            setattr(config, attr, int(_number(value, f"-{name}")))  # type: ignore[arg-type]
    output = line.get("output")
    if output is not None:
        config.output = output_option(output)
    epdout, log = line.get("epdout"), line.get("log")
    if epdout is not None:
        _epdout(epdout, config)
    if log is not None:
        _log(log, config)
    if outname is not None:
        config.state_file = outname
    for name, attr in (("state", "state_file"), ("plot", "plot"), ("event", "event"), ("site", "site"),
                       ("variant", "variant"), ("tb", "tb_path")):
        value = _single(line, name)
        if value is not None:
            setattr(config, attr, value)
    if config.state_file is None and config.pgnout is not None:
        config.state_file = config.pgnout + ".state.json"
    return config, is_default
