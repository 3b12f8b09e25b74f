#!/usr/bin/env bash
# Checks the Swift sources' layout with the toolchain's swift-format and the checked-in
# .swift-format, and fails on any finding.
#   scripts/lint.sh             lint: one line per finding, exit 1 if there is any
#   scripts/lint.sh --summary   the findings counted by rule instead, still exit 1 if any
#   scripts/lint.sh --format    rewrite the files in place to match (what a finding asks for)
# Covers Sources, Tests, Fuzz, Examples (when present) and Package.swift.
#
# .swift-format is swift-format's defaults, changed where this codebase has its own settled
# style, so that formatting changes as little as possible:
# - 4 spaces, lines up to 140 columns, `#if` blocks not indented;
# - off: OrderedImports (imports are sorted ignoring case: Testing before TestSupport, and
#   @testable last), OneVariableDeclarationPerLine (`let a = 1, b = 2` is used on purpose),
#   DoNotUseSemicolons (short closures such as `{ defer { x = nil }; return x }`),
#   ReplaceForEachWithForLoop (`items.forEach { $0.cancel() }`), OnlyOneTrailingClosureArgument
#   (it flags `withTaskCancellationHandler { ... } onCancel: { ... }`) and OneCasePerLine
#   (`enum Destination { case held, slot(Slot), direct }`). These rules only lint (formatting
#   does not fix them), so leaving them on would fail the code after every format.
# What swift-format cannot keep is the continuation of a call or signature aligned under its
# opening parenthesis: it breaks after the parenthesis and indents by 4 instead.
set -euo pipefail
cd "$(dirname "$0")/.."

paths=(Package.swift Sources Tests Fuzz)
[[ -d Examples ]] && paths+=(Examples)

case "${1:-}" in
--format)
    exec swift format format --in-place --recursive --parallel "${paths[@]}"
    ;;
--summary)
    findings="$(swift format lint --recursive --parallel "${paths[@]}" 2>&1)" || true
    if [[ -z "$findings" ]]; then
        echo "lint: no findings"
        exit 0
    fi
    count="$(grep -c ': warning: \[' <<< "$findings" || true)"
    files="$(grep ': warning: \[' <<< "$findings" | cut -d: -f1 | sort -u | wc -l)"
    echo "lint: $count findings in $files files:"
    sed -n 's/.*: warning: \[\([A-Za-z]*\)\].*/\1/p' <<< "$findings" | sort | uniq -c | sort -rn
    exit 1
    ;;
"")
    exec swift format lint --strict --recursive --parallel "${paths[@]}"
    ;;
*)
    echo "usage: scripts/lint.sh [--summary|--format]" >&2
    exit 2
    ;;
esac
