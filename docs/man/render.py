#!/usr/bin/env python3
"""render.py IN OUT --ibscope BIN --gen BIN - fills the generated parts of a
manual page or of the bash completion from what the built programs list for
tools, so that they say what the build does:
  from `ibscope --list-kinds` (the core's finding table): @FINDING_KINDS@ (as
  manual page items) and @KINDS@ (words);
  from `ibscope --list-options` (every command's option table): @SUBCOMMANDS@,
  and the completion's tables @OPTION_WORDS@, @OPTION_VALUES@, @OPTION_CHOICES@;
  from `ibscope-gen --list-options` and --list-scenarios:
  the same tables for ibscope-gen, @GEN_OPTION_WORDS@, @GEN_OPTION_VALUES@,
  @GEN_OPTION_CHOICES@, and its commands with options and scenarios,
  @GEN_COMMANDS@;
  from `ibscope-gen --list-scenarios` (the generator's scenario table):
  @SCENARIOS@;
  @DOCDIR@ is --docdir, where the docs and samples are installed.
No text meant for people is read back."""
import argparse
import subprocess


def lines_of(*argv):
    """A listing for tools: its lines, each split at the tabs."""
    out = subprocess.run(list(argv), capture_output=True, text=True, check=True).stdout
    return [line.split("\t") for line in out.split("\n") if line]


def option_table(program):
    """Every command's options: [(command, long, short, value, choices, group)],
    in the tables' order (`--list-options`, documented in ibscope(1))."""
    return [tuple(f) for f in lines_of(program, "--list-options")]


def finding_kinds(ibscope):
    """[(name, severity, description)] from `ibscope --list-kinds`."""
    return [tuple(f) for f in lines_of(ibscope, "--list-kinds")]


def kind_items(ibscope):
    """*name* (severity) and the description, as scdoc items."""
    return "\n\n".join("*%s* (%s)\n\t%s" % k for k in finding_kinds(ibscope))


def bash_word(s):
    """s as one single-quoted bash word."""
    return "'" + s.replace("'", "'\\''") + "'"


def completion_tables(program, marker="@"):
    """The words of the completion's three associative arrays, by marker
    ("@OPTION_WORDS@"; "@GEN_" for ibscope-gen's)."""
    words, values, choices = {}, [], []
    for cmd, long, short, value, chosen, group in option_table(program):
        if group:  # the options for tools are not offered
            words.setdefault(cmd, []).extend([short] if short else [])
            words[cmd].append(long)
        for name in (long, short):
            if name and value:
                values.append("[%s]=%s" % (bash_word(cmd + " " + name), bash_word(value)))
            if name and chosen:
                choices.append("[%s]=%s" % (bash_word(cmd + " " + name),
                                            bash_word(chosen.replace(",", " "))))
    return {marker + "OPTION_WORDS@": " ".join("[%s]=%s" % (bash_word(c),
                                                            bash_word(" ".join(w)))
                                               for c, w in words.items()),
            marker + "OPTION_VALUES@": " ".join(values),
            marker + "OPTION_CHOICES@": " ".join(choices)}


def gen_commands(gen):
    """ibscope-gen's commands that have options, and its scenarios (the
    template names those without options itself)."""
    commands = [o[0] for o in option_table(gen) if o[0] != "ibscope-gen"]
    commands += [name for name, _ in lines_of(gen, "--list-scenarios")]
    return " ".join(dict.fromkeys(commands))


def scenarios(gen):
    """ibscope-gen's scenarios, from `ibscope-gen --list-scenarios`
    (name and description), as scdoc items."""
    return "\n\n".join("*%s*\n\t%s" % (name, text)
                         for name, text in lines_of(gen, "--list-scenarios"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--ibscope", required=True)
    ap.add_argument("--gen", required=True)
    ap.add_argument("--docdir", default="/usr/share/doc/ibscope")
    a = ap.parse_args()
    with open(a.input) as f:
        text = f.read()
    text = text.replace("@DOCDIR@", a.docdir)
    if "@FINDING_KINDS@" in text:
        text = text.replace("@FINDING_KINDS@", kind_items(a.ibscope))
    if "@SCENARIOS@" in text:
        text = text.replace("@SCENARIOS@", scenarios(a.gen))
    if "@KINDS@" in text:
        text = text.replace("@KINDS@", " ".join(k[0] for k in finding_kinds(a.ibscope)))
    if "@SUBCOMMANDS@" in text:
        subs = dict.fromkeys(o[0] for o in option_table(a.ibscope) if o[0] != "ibscope")
        text = text.replace("@SUBCOMMANDS@", " ".join(subs))
    if "@OPTION_WORDS@" in text:
        for marker, words in completion_tables(a.ibscope).items():
            text = text.replace(marker, words)
    if "@GEN_OPTION_WORDS@" in text:
        for marker, words in completion_tables(a.gen, "@GEN_").items():
            text = text.replace(marker, words)
        text = text.replace("@GEN_COMMANDS@", gen_commands(a.gen))
    with open(a.output, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
