#!/usr/bin/env bash
# deploy.man: the installed man pages render with `man -l` without a troff
# warning, and each describes its own program and every daemon flag.
TEST_NAME='man'
source "$(dirname "$0")/deploy_lib.sh"
require_stage
command -v man >/dev/null || skip "man is not installed (package man-db)"

render() {
  local page="$1" out="$2"
  env -u MAN_KEEP_FORMATTING MANWIDTH=80 man -l --warnings "$page" >"$out" 2>"$T/warnings" \
    || { cat "$T/warnings"; fail "man -l $page failed"; }
  if [ -s "$T/warnings" ]; then
    cat "$T/warnings"
    fail "troff warnings in $page"
  fi
  grep -q '^NAME' "$out" || fail "$page renders without a NAME section"
}

step "optraced(8)"
render "$PREFIX/share/man/man8/optraced.8" "$T/optraced.txt"
grep -q 'optraced - ' "$T/optraced.txt" || fail "optraced.8 does not name optraced"
# Every flag of `optraced --help` appears in the page.
"$PREFIX/sbin/optraced" --help >"$T/help.txt"
for flag in $(grep -oE -- '--[a-z][a-z-]+' "$T/help.txt" | sort -u); do
  [ "$flag" = --help ] && continue
  [ "$flag" = --foreground ] && continue  # a no-op kept for service managers
  grep -q -- "$flag" "$T/optraced.txt" || fail "optraced.8 does not document $flag"
done

step "optrace(1)"
render "$PREFIX/share/man/man1/optrace.1" "$T/optrace.txt"
grep -q 'optrace - ' "$T/optrace.txt" || fail "optrace.1 does not name optrace"
for command in tail level sessions ops stats tree steps why diff export keep window status run ui; do
  grep -qE "^ +$command( |$)" "$T/optrace.txt" || fail "optrace.1 does not document '$command'"
done
