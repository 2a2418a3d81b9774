#!/bin/bash
# man_pages: the component's pages of section 7 read as one manual.
# - apropos finds every page by its name and description: the pages, with the two of section 1, go into a
#   scratch MANPATH, mandb indexes it, and `apropos cupti_cb` (what `man -k cupti_cb` runs)
#   must list each one with its section;
# - no page is longer than 800 lines;
# - each page names every other page of section 7 under SEE ALSO;
# - every cupti_cb page that a page names, anywhere, is one of the pages.
# The pages are those man/Makefile.am installs (MAN7_PAGES, MAN1_PAGES from make check).
set -u
src=${srcdir:-.}
read -r -a man7 <<< "${MAN7_PAGES:-$(cd "$src" && echo cupti_cb*.7)}"
read -r -a man1 <<< "${MAN1_PAGES:-cupti_cb_run.1 cupti_cb_metric_groups.1}"
fails=0 n=0
result() {	# result OK DESCRIPTION [WHY]
    n=$((n + 1))
    if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2: $3"; fails=$((fails + 1)); fi
}

names=()
for p in "${man7[@]}"; do names+=("${p%.7}"); done

for p in "${man7[@]}"; do
    lines=$(wc -l < "$src/$p")
    result $(( lines > 800 )) "$p has at most 800 lines" "it has $lines"

    see_also=$(sed -n '/^\.SH SEE ALSO/,/^\.SH /p' "$src/$p")
    missing=
    for other in "${names[@]}"; do
        [ "$other" = "${p%.7}" ] && continue
        # written cupti_cb\-x, so that no line breaks at its hyphen
        grep -qF ".BR ${other//-/\\-} (7)" <<< "$see_also" || missing="$missing $other(7)"
    done
    result $([ -z "$missing" ]; echo $?) "$p names every other page under SEE ALSO" "missing:$missing"

    unknown=
    for ref in $(sed 's/\\-/-/g; s/\\f[BIRP]//g' "$src/$p" | grep -o 'cupti_cb[-a-z]* *(7)' | sed 's/ *(7)//' | sort -u); do
        case " ${names[*]} " in *" $ref "*) ;; *) unknown="$unknown $ref(7)" ;; esac
    done
    result $([ -z "$unknown" ]; echo $?) "$p names only pages that exist" "no such page:$unknown"
done

if command -v mandb > /dev/null 2>&1 && command -v apropos > /dev/null 2>&1; then
    tmp=$(mktemp -d) || exit 1
    trap 'rm -rf "$tmp"' EXIT
    mkdir "$tmp/man1" "$tmp/man7"
    for p in "${man7[@]}"; do cp "$src/$p" "$tmp/man7/"; done
    for p in "${man1[@]}"; do cp "$src/$p" "$tmp/man1/"; done
    out=$(mandb --quiet --create "$tmp" 2>&1) || result 1 "mandb indexes the pages" "$out"
    found=$(MANPATH=$tmp apropos cupti_cb 2>&1)
    for p in "${man7[@]}" "${man1[@]}"; do
        name=${p%.*} section=${p##*.}
        # mandb indexes a page whose NAME section it cannot read as "(unknown subject)".
        line=$(grep "^$name ($section) " <<< "$found")
        [ -n "$line" ] && ! grep -qF '(unknown subject)' <<< "$line"
        result $? "man -k cupti_cb lists $name($section) with its description" "apropos printed: $found"
    done
else
    echo "# mandb or apropos is not installed: man -k is not checked"
fi
echo "1..$n"
[ "$fails" -eq 0 ]
