#!/bin/sh
# The extension's tests: installs the pinned packages (npm ci), checks every scope
# assertion of the TextMate grammar in sample.case, then runs the language client's
# tests (test/extension.test.js). Run from anywhere; exits non-zero on failure.
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
npm test --silent
