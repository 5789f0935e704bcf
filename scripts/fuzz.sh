#!/usr/bin/env bash
# Fuzzes the parsers of untrusted bytes with libFuzzer and AddressSanitizer.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
# Builds the package in Fuzz/ (one executable per Fuzz/Sources/fuzz-<target>), then runs each
# target (all by default) for SECONDS (60 by default) from a scratch copy of its seed corpus
# Fuzz/Corpus/<target>, in Fuzz/.runs/<target>. Prints the executions and coverage per target and exits
# non-zero if any target crashed, hung or ran out of memory, naming the input that did it.
# Extra libFuzzer flags go in FUZZ_FLAGS, such as FUZZ_FLAGS="-runs=1000000".
set -euo pipefail

cd "$(dirname "$0")/.."

seconds=${1:-60}
[ $# -gt 0 ] && shift
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
    echo "usage: $0 [SECONDS] [TARGET...]: SECONDS must be a positive whole number, not '$seconds'" >&2
    exit 2
fi

all_targets=()
for folder in Fuzz/Sources/fuzz-*/; do
    folder=${folder%/}
    all_targets+=("${folder#Fuzz/Sources/fuzz-}")
done
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${all_targets[@]}")
for target in "${targets[@]}"; do
    if [ ! -d "Fuzz/Sources/fuzz-$target" ]; then
        echo "$0: no target '$target'; the targets are: ${all_targets[*]}" >&2
        exit 2
    fi
    if [ ! -d "Fuzz/Corpus/$target" ]; then
        echo "$0: target '$target' has no seed corpus Fuzz/Corpus/$target" >&2
        exit 2
    fi
done

# lld, because gold fails on libFuzzer's objects. The sanitizer flags reach every Swift module,
# so the library's parsers are instrumented too, not only the fuzz targets.
build=(swift build --package-path Fuzz -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld)
"${build[@]}"
bin=$("${build[@]}" --show-bin-path)
for target in "${targets[@]}"; do
    if [ ! -x "$bin/fuzz-$target" ]; then
        echo "$0: fuzz-$target was not built: add \"$target\" to fuzzTargets in Fuzz/Package.swift" >&2
        exit 2
    fi
done

# Swift's own crash backtracer would run before libFuzzer's handler; libFuzzer reports instead.
export SWIFT_BACKTRACE=enable=no

failed=0
summary=()
for target in "${targets[@]}"; do
    run="Fuzz/.runs/$target"
    rm -rf "$run"
    mkdir -p "$run/corpus"
    cp -R "Fuzz/Corpus/$target/." "$run/corpus/"
    echo "== $target: ${seconds}s from $(find "Fuzz/Corpus/$target" -type f | wc -l) seeds; log in $run/log"
    # A target's grammar, when it has one, steers mutations towards well-formed text.
    dictionary=()
    [ -f "Fuzz/Dictionaries/$target.dict" ] && dictionary=(-dict="Fuzz/Dictionaries/$target.dict")
    status=0
    "$bin/fuzz-$target" "$run/corpus" -max_total_time="$seconds" -timeout=10 -print_final_stats=1 \
        -artifact_prefix="$run/" "${dictionary[@]}" ${FUZZ_FLAGS:-} >"$run/log" 2>&1 || status=$?
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$run/log" | tail -n 1)
    [ -n "$executions" ] || executions=$(sed -n 's/^#\([0-9][0-9]*\).*/\1/p' "$run/log" | tail -n 1)
    corpus=$(find "$run/corpus" -type f | wc -l)
    # libFuzzer's last status line: edges covered (cov) and features (ft) in instrumented code.
    coverage=$(grep -E '^#[0-9]+.* cov: ' "$run/log" | tail -n 1 | sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\).*/\1 edges, \2 features/p')
    artifact=$(find "$run" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | head -n 1)
    if [ "$status" -ne 0 ] || [ -n "$artifact" ]; then
        failed=1
        line="$target: FAILED after ${executions:-?} executions (exit $status): ${artifact:-no input saved}"
        grep -m 1 -E '(==ERROR|Fatal error)' "$run/log" || tail -n 5 "$run/log"
    else
        line="$target: ${executions:-?} executions, ${coverage:-? edges}, corpus grew to $corpus inputs, no crash"
    fi
    echo "$line"
    summary+=("$line")
done

echo "== summary"
printf '%s\n' "${summary[@]}"
exit "$failed"
