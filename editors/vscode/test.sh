#!/bin/sh
# TextMate grammar tests: installs the pinned vscode-tmgrammar-test (npm ci) and checks
# every scope assertion in sample.case. Run from anywhere; exits non-zero on failure.
set -eu
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --silent
# `casec fmt` indents comments inside blocks, but the test runner only reads assertion
# comments that start in column 0. Moving each assertion's `#` to column 0 keeps every
# caret in its column (and line numbers in reports stay those of sample.case).
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sed -E 's/^( +)#( *[\^<])/#\1\2/' sample.case > "$work/sample.case"
npx --no-install vscode-tmgrammar-test --grammar syntaxes/case.tmLanguage.json "$work/sample.case"
