#!/bin/bash
# make install puts exactly nofd-httpd, its man page and its systemd unit
# where they belong, under DESTDIR, for the default PREFIX (/usr/local) and
# for PREFIX=/usr; make uninstall takes exactly those away again. The
# installed binary is the one built; the man page renders without a
# warning (man --warnings, else groff -ww) and names every option that
# `nofd-httpd --help` lists, and httpd/README.md's option table names
# those options, no more and no fewer; the unit has what the issue asks
# for (User=, AmbientCapabilities=CAP_NET_BIND_SERVICE, ExecReload=
# sending SIGUSR1, KillSignal=SIGTERM, LimitMEMLOCK=, a TimeoutStopSec=
# over the drain limit and a tick) and systemd-analyze verify accepts it
# (its ExecStart= pointed into DESTDIR, the man page found there). Where
# man and groff, or systemd-analyze, are absent that part is skipped, and
# the last line says so. Nothing is installed on the machine itself.
#
#   tests/host/install.sh [KERNEL]   (a host check of make test; KERNEL unused)
set -uo pipefail
usage="usage: tests/host/install.sh [KERNEL]   (a host check of make test; KERNEL unused)"
case ${1:-} in
-h|--help) echo "$usage"; exit 0 ;;
-*) echo "$usage" >&2; exit 2 ;;
esac
[ $# -le 1 ] || { echo "$usage" >&2; exit 2; }
cd "$(dirname "$0")/../.."
what="install: make install puts exactly the binary, nofd-httpd(8) and nofd-httpd.service (PREFIX /usr/local and /usr), uninstall removes them"
[ -x build/bin/nofd-httpd ] || { echo "$what: no build/bin/nofd-httpd (make all)"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0 skipped=()
fail() { echo "FAIL: $*"; bad=$((bad + 1)); }

# installed PREFIX: what is under DESTDIR afterwards, "MODE PATH" a line
installed() { (cd "$1" && find . ! -type d -printf '%m %P\n' | LC_ALL=C sort); }

for prefix in /usr/local /usr; do
	dest=$tmp/dest${prefix//\//-}
	mkdir -p "$dest"
	if ! make -s --no-print-directory install DESTDIR="$dest" PREFIX="$prefix" \
		>"$tmp/make.log" 2>&1; then
		cat "$tmp/make.log"
		fail "make install PREFIX=$prefix failed"
		continue
	fi
	p=${prefix#/}
	printf '%s\n' "644 $p/lib/systemd/system/nofd-httpd.service" \
		"644 $p/share/man/man8/nofd-httpd.8" "755 $p/sbin/nofd-httpd" |
		LC_ALL=C sort >"$tmp/want"
	installed "$dest" >"$tmp/got"
	diff -u "$tmp/want" "$tmp/got" >"$tmp/diff" ||
		{ cat "$tmp/diff"; fail "PREFIX=$prefix: not exactly the three files"; }
	cmp -s build/bin/nofd-httpd "$dest$prefix/sbin/nofd-httpd" ||
		fail "PREFIX=$prefix: the installed binary is not build/bin/nofd-httpd"
	unit=$dest$prefix/lib/systemd/system/nofd-httpd.service
	grep -q "^ExecStart=$prefix/sbin/nofd-httpd " "$unit" ||
		fail "PREFIX=$prefix: ExecStart= does not name $prefix/sbin/nofd-httpd"
	! grep -q @ "$unit" || fail "PREFIX=$prefix: a placeholder left in the unit: $(grep @ "$unit")"

	if [ "$prefix" = /usr/local ]; then
		# what the unit must have
		for want in '^User=' '^AmbientCapabilities=CAP_NET_BIND_SERVICE$' \
			'^ExecReload=/bin/kill -USR1 \$MAINPID$' '^KillSignal=SIGTERM$' \
			'^LimitMEMLOCK=[0-9]'; do
			grep -q "$want" "$unit" || fail "the unit has no line $want"
		done
		# systemd's stop timeout outlasts the drain: its limit (the
		# unit's --drain-timeout, else the default --help gives) and a
		# tick of the server's clock (1 s), or a full drain is killed
		drain=$(grep -oE -- '^ExecStart=.* --drain-timeout[ =][0-9]+' "$unit" |
			grep -oE '[0-9]+$')
		[ -n "$drain" ] || drain=$(build/bin/nofd-httpd --help |
			tr -s ' \n' ' ' |
			grep -oE -- '--drain-timeout MS [^(]*\(default [0-9]+' |
			grep -oE '[0-9]+$')
		stop=$(sed -n 's/^TimeoutStopSec=\([0-9][0-9]*\)s\{0,1\}$/\1/p' "$unit")
		if [ -z "$drain" ] || [ -z "$stop" ]; then
			fail "no drain limit (${drain:-none}) or TimeoutStopSec= in seconds (${stop:-none}) to compare"
		elif [ $((stop * 1000)) -le $((drain + 1000)) ]; then
			fail "TimeoutStopSec=${stop}s is not over the drain limit of $drain ms and a tick (1 s)"
		fi
		if command -v systemd-analyze >/dev/null; then
			# the installed unit, its binary and man page where DESTDIR
			# put them
			mkdir -p "$tmp/unit"
			sed "s|^ExecStart=$prefix/sbin/|ExecStart=$dest$prefix/sbin/|" \
				"$unit" >"$tmp/unit/nofd-httpd.service"
			MANPATH=$dest$prefix/share/man systemd-analyze verify \
				"$tmp/unit/nofd-httpd.service" >"$tmp/verify" 2>&1 ||
				{ cat "$tmp/verify"; fail "systemd-analyze verify refuses the unit"; }
			[ ! -s "$tmp/verify" ] ||
				{ cat "$tmp/verify"; fail "systemd-analyze verify warns about the unit"; }
		else
			skipped+=("unit not verified: no systemd-analyze")
		fi
		page=$dest$prefix/share/man/man8/nofd-httpd.8
		if command -v man >/dev/null; then
			MANWIDTH=80 man --warnings -l "$page" >"$tmp/page" 2>"$tmp/warn"
			rc=$?
		elif command -v groff >/dev/null; then
			groff -man -ww -Tutf8 "$page" >"$tmp/page" 2>"$tmp/warn"
			rc=$?
		else
			rc=skip
			skipped+=("man page not rendered: neither man nor groff")
		fi
		if [ "$rc" != skip ]; then
			[ "$rc" = 0 ] && [ ! -s "$tmp/warn" ] ||
				{ cat "$tmp/warn"; fail "the man page renders with warnings (exit $rc)"; }
			grep -q '^SIGNALS' "$tmp/page" && grep -q '^EXAMPLES' "$tmp/page" &&
				grep -q 'setcap cap_net_bind_service=+ep' "$tmp/page" ||
				fail "the man page lacks SIGNALS, EXAMPLES or the setcap example"
		fi
		# httpd/README.md's option table (the first cell of each row)
		# and --help's option lines name the same long options
		awk '/^\| option \| default \| \|$/ { t = 1; next }
		     t && /^$/ { exit } t' httpd/README.md | cut -d'|' -f2 |
			grep -oE -- '--[a-z][a-z-]*' | sort -u >"$tmp/readme-opts"
		build/bin/nofd-httpd --help |
			grep -oE '^ {2,6}(-[a-zA-Z], )?--[a-z][a-z-]*' |
			grep -oE -- '--[a-z][a-z-]*' | sort -u >"$tmp/help-opts"
		[ -s "$tmp/readme-opts" ] ||
			fail "no option table found in httpd/README.md"
		only=$(comm -23 "$tmp/readme-opts" "$tmp/help-opts" | tr '\n' ' ')
		[ -z "$only" ] ||
			fail "httpd/README.md's option table has what --help lacks: $only"
		only=$(comm -13 "$tmp/readme-opts" "$tmp/help-opts" | tr '\n' ' ')
		[ -z "$only" ] ||
			fail "--help has what httpd/README.md's option table lacks: $only"
		# every option of --help is in the man page (\- is a hyphen there)
		sed 's/\\-/-/g' "$page" >"$tmp/roff"
		for o in $(build/bin/nofd-httpd --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
			grep -q -- "$o\\b" "$tmp/roff" ||
				fail "the man page does not name $o (nofd-httpd --help lists it)"
		done
	fi

	make -s --no-print-directory uninstall DESTDIR="$dest" PREFIX="$prefix" \
		>"$tmp/make.log" 2>&1 || { cat "$tmp/make.log"; fail "make uninstall failed"; }
	left=$(installed "$dest")
	[ -z "$left" ] || fail "PREFIX=$prefix: make uninstall left $left"
done

if [ $bad != 0 ]; then
	echo "$what: $bad failures"
	exit 1
fi
if [ ${#skipped[@]} = 0 ]; then
	echo "$what; the unit passes systemd-analyze verify, the man page renders cleanly and names every option, as README's table does"
else
	echo "$what; skipped: $(IFS=';'; echo "${skipped[*]}")"
fi
