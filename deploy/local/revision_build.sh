# Sourced by the A/B scripts (ab.sh, ab_planning.sh): builds one product of a revision in release mode, each
# revision from a clean export of its commit, cached in $PUSH_AB_DIR (default /tmp/push-ab) by what the binary is built
# from, so that commits changing only scripts or docs share a build. `.` is this checkout as it is.

revision_build_cache=${PUSH_AB_DIR:-/tmp/push-ab}

# build_revision REV PRODUCT [PREPARE [KEY_INPUT]]: prints the path of REV's release PRODUCT, building it first unless
# cached. PREPARE, a function, runs in the exported sources before the build (not for `.`); KEY_INPUT is a file it
# adds to them, which joins the cache key.
build_revision() {
    local rev=$1 product=$2 prepare=${3:-} key_input=${4:-}
    if [[ $rev == . ]]; then
        swift build -c release --product "$product" >&2
        echo "$(swift build -c release --show-bin-path)/$product"
        return
    fi
    local sha key dir
    sha=$(git rev-parse --verify "$rev^{commit}")
    key=$({
        git rev-parse "$sha:Sources" "$sha:Package.swift"
        git rev-parse -q --verify "$sha:Package.resolved" || true
        if [[ -n $key_input ]]; then sha1sum <"$key_input"; fi
    } | sha1sum | cut -c1-40)
    dir=$revision_build_cache/$key
    if [[ ! -x $dir/$product ]]; then
        echo "build: $product of $rev ($sha) in $dir/src" >&2
        rm -rf "$dir/src"
        mkdir -p "$dir/src"
        git archive "$sha" | tar -x -C "$dir/src"
        if [[ -n $prepare ]]; then (cd "$dir/src" && "$prepare"); fi
        (cd "$dir/src" && swift build -c release --product "$product" >&2 &&
            cp "$(swift build -c release --show-bin-path)/$product" "$dir/$product")
    fi
    echo "$dir/$product"
}

# build_revisions REV_A REV_B PRODUCT [PREPARE [KEY_INPUT]]: sets bin_a and bin_b. This checkout first: once it is
# built, editing it cannot leak into the run.
build_revisions() {
    local rev_a=$1 rev_b=$2
    shift 2
    if [[ $rev_b == . ]]; then
        bin_b=$(build_revision "$rev_b" "$@")
        bin_a=$(build_revision "$rev_a" "$@")
    else
        bin_a=$(build_revision "$rev_a" "$@")
        bin_b=$(build_revision "$rev_b" "$@")
    fi
}
