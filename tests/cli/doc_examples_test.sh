#!/usr/bin/env bash
# The shell examples of README.md and docs/*.md, as a reader would paste them:
#  - in a ``` block, each line "$ COMMAND" is run by bash and what it prints
#    (standard output and error) must be the lines that follow it, up to the
#    next "$ " line or the block's end;
#  - every other jitrun or jitcache command shown (a block line, or an inline
#    `jitrun ...` span) and the examples of `jitrun --help` must be accepted
#    by bash as written (`-i x=rand(5)` unquoted is a syntax error).
# Commands run in an empty folder, on the CPU (no GPU is offered, so outputs
# do not depend on the machine); jitrun's notice that it runs on the CPU is not
# part of the printed output. ./build-demo/tools/jitrun (tools/demo.sh's) and
# an installed `jitrun` both run the jitrun under test.
# Usage: doc_examples_test.sh path/to/jitrun SOURCE_DIR
set -u
JITRUN="$1"
SRC="$2"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/bin" "$TMP/run/build-demo/tools"
ln -s "$JITRUN" "$TMP/bin/jitrun"
ln -s "$JITRUN" "$TMP/run/build-demo/tools/jitrun"
export PATH="$TMP/bin:$PATH" CUDA_VISIBLE_DEVICES="" NO_COLOR=1
fails=0
ran=0
parsed=0

run_example() {  # FILE LINE COMMAND EXPECTED
  local got
  got=$(cd "$TMP/run" && bash -c "$3" 2>&1 | grep -v '^jitrun: no usable GPU')
  ran=$((ran + 1))
  if [ "$got" != "$4" ]; then
    echo "FAIL: $1:$2: \$ $3"
    echo "  printed:"; printf '%s\n' "$got" | sed 's/^/    /'
    echo "  the document shows:"; printf '%s\n' "$4" | sed 's/^/    /'
    fails=$((fails + 1))
  fi
}

check_syntax() {  # WHERE COMMAND
  parsed=$((parsed + 1))
  if ! bash -n -c "$2" 2>"$TMP/err"; then
    echo "FAIL: $1: bash refuses the example: $2"
    sed 's/^/  /' "$TMP/err"
    fails=$((fails + 1))
  fi
}

# A synopsis ("jitrun [OPTIONS] PROGRAM", "-f FILE", "...") is a pattern, not a command.
is_command() {
  [[ "$1" != *'...'* && "$1" != *'[OPTIONS]'* && ! "$1" =~ \ [A-Z]{2,}($|\ ) ]]
}

for doc in "$SRC/README.md" "$SRC"/docs/*.md; do
  name=${doc#"$SRC/"}
  in_block=0 cmd="" cmd_line=0 expected="" lineno=0
  flush() {
    if [ -n "$cmd" ]; then run_example "$name" "$cmd_line" "$cmd" "$expected"; fi
    cmd="" expected=""
  }
  while IFS= read -r line || [ -n "$line" ]; do
    lineno=$((lineno + 1))
    if [[ "$line" == '```'* ]]; then
      flush
      in_block=$((1 - in_block))
      continue
    fi
    if [ "$in_block" = 1 ]; then
      if [[ "$line" == '$ '* ]]; then
        flush
        cmd=${line#'$ '} cmd_line=$lineno
      elif [ -n "$cmd" ]; then
        expected+=${expected:+$'\n'}$line
      elif [[ "$line" =~ ^(jitrun|jitcache)\  ]] && is_command "$line"; then
        check_syntax "$name:$lineno" "${line%%#*}"
      fi
    else
      # Inline spans: `jitrun ...`.
      while [[ "$line" =~ \`((jitrun|jitcache)\ [^\`]*)\` ]]; do
        span=${BASH_REMATCH[1]}
        # A span with an ellipsis or a placeholder in capitals is a pattern, not a command.
        if is_command "$span"; then check_syntax "$name:$lineno" "$span"; fi
        line=${line#*"\`$span\`"}
      done
    fi
  done < "$doc"
  flush
done

# jitrun --help: its example lines.
while IFS= read -r ex; do
  check_syntax "jitrun --help" "$ex"
done < <("$JITRUN" --help | grep -o '\(Example\|Pipes\): jitrun .*' | sed 's/^[A-Za-z]*: //; s/ < .*//')

echo "$ran examples run, $parsed more checked by bash -n"
if [ "$ran" -lt 3 ] || [ "$parsed" -lt 3 ]; then
  echo "FAIL: too few examples found (the extraction is broken)"
  fails=$((fails + 1))
fi
if [ "$fails" != 0 ]; then
  echo "$fails documentation example(s) failed"
  exit 1
fi
echo "all documentation examples passed"
