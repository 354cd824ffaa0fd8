# kernel/lib.sh: what the kernel scripts share. Sourced, not run (the
# model is kselftest's net/lib.sh):
#
#   . "$(dirname "$0")/lib.sh"
#
#   NOFD_TOP, NOFD_VERSION  the repository; the pinned linux-source-7.3
#   NOFD_TARBALL            the packaged tree's tarball, in the package
#                           scripts/deps.sh unpacked into the cache
#   NOFD_SRC                where the tree with the series applied is kept,
#                           outside the clone
#   NOFD_CACHE_DIR          where finished images are kept ($NOFD_CACHE,
#                           default /var/cache/nofd, + /kernel)
#   nofd_topics             the series' topic folders, in the order they
#                           stack (kernel/patches/NN-NAME), one per line
#   nofd_topic_patches DIR  a topic's patches, in its series file's order
#   nofd_topic_needs DIR    the topic folders it needs under it (its
#                           cover.txt's Needs: line)
#   nofd_patches            the whole series in order, one path per line
#                           (cover letters are not patches)
#   nofd_base_commit        in an unpacked tree: a git repository whose
#                           first commit, tagged nofd-base, is the tree;
#                           the same commit id wherever it is made, the
#                           base-commit: of every topic
#   nofd_pinned_commit MESSAGE TAG
#                           the same for any unpacked tree (liburing/tree.sh)
#   nofd_fragments FLAVOUR  the config fragments of fast or debug
#   nofd_unpack DIR         the packaged tree into DIR
#   nofd_configure SRC OBJ FRAGMENT...
#                           tinyconfig, the fragments, olddefconfig, then
#                           fail unless every option the fragments ask for
#                           survived (a dependency can drop one silently)
#   nofd_am_stacked PATCH...
#                           in a git tree: git am each patch; one that does
#                           not apply as it is is merged (git am -3) where
#                           its only conflicts are two topics appending to
#                           one list (kernel/append-merge.c), else fails
#   nofd_apply_series [--tag]
#                           in a git tree at nofd-base: every topic of
#                           kernel/patches stacked, each applied alone first
#                           (onto the base and what it needs, on a branch of
#                           its own) so that git am -3 has the blobs its
#                           patches were made against; --tag tags each
#                           topic's last commit nofd-topic/NN-NAME
#   nofd_pick_alone COMMIT...
#                           the same for git cherry-pick: a topic's commits
#                           onto the base and what it needs, without the
#                           entries earlier topics appended to its lists
#   nofd_build SRC OBJ TARGET NAME
#                           make TARGET, showing progress: objects compiled
#                           out of what the last cold build of NAME compiled,
#                           and the time, on one line on a terminal, every
#                           30 s otherwise

NOFD_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NOFD_VERSION=$(cat "$NOFD_TOP/kernel/debian-version")
NOFD_TARBALL=${NOFD_CACHE:-/var/cache/nofd}/pkg/linux-source-7.3_$NOFD_VERSION/usr/src/linux-source-7.3.tar.xz
NOFD_SRC=${NOFD_CACHE:-/var/cache/nofd}/src/linux-source-7.3
NOFD_CACHE_DIR=${NOFD_CACHE:-/var/cache/nofd}/kernel

nofd_topics() {
	find "$NOFD_TOP/kernel/patches" -mindepth 1 -maxdepth 1 -type d \
		-name '[0-9][0-9]-*' | LC_ALL=C sort
}

nofd_topic_patches() {
	local line
	while IFS= read -r line; do
		case $line in
		""|"#"*) ;;
		*) echo "$1/$line" ;;
		esac
	done <"$1/series"
}

nofd_topic_needs() {
	local name
	for name in $(sed -n '/^$/q; s/^Needs://p' "$1/cover.txt"); do
		echo "$NOFD_TOP/kernel/patches/$name"
	done
}

nofd_patches() {
	local t
	for t in $(nofd_topics); do
		nofd_topic_patches "$t"
	done
}

nofd_base_commit() {
	nofd_pinned_commit "linux-source-7.3 $NOFD_VERSION (Debian)" nofd-base
}

nofd_pinned_commit() {
	git init -q
	# no background gc: it would outlive its caller, holding its locks
	git config gc.auto 0
	# The packaged tree's .gitignore ignores everything: add it by force.
	git add -f .
	GIT_AUTHOR_NAME=nofd GIT_AUTHOR_EMAIL=nofd@localhost \
	GIT_COMMITTER_NAME=nofd GIT_COMMITTER_EMAIL=nofd@localhost \
	GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" \
	GIT_COMMITTER_DATE="2026-01-01T00:00:00Z" \
		git commit -q -m "$1"
	git tag "$2"
}

nofd_fragments() {
	case $1 in
	fast) echo "$NOFD_TOP/kernel/config/base.config"
	      echo "$NOFD_TOP/kernel/config/fast.config" ;;
	debug) echo "$NOFD_TOP/kernel/config/base.config"
	       echo "$NOFD_TOP/kernel/config/debug.config" ;;
	*) echo "kernel: unknown flavour '$1' (fast or debug)" >&2; return 2 ;;
	esac
}

nofd_unpack() {
	mkdir -p "$1"
	tar -C "$1" --strip-components=1 -xf "$NOFD_TARBALL"
}

nofd_configure() {
	local src obj line want name got missing=0
	src=$(cd "$1" && pwd) || return 1
	mkdir -p "$2" && obj=$(cd "$2" && pwd) || return 1
	shift 2
	make -s -C "$src" O="$obj" ARCH=x86_64 tinyconfig || return 1
	(cd "$obj" && "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" \
		"$obj/.config" "$@" >/dev/null) || return 1
	make -s -C "$src" O="$obj" ARCH=x86_64 olddefconfig || return 1
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*|"# CONFIG_"*" is not set") want=$line ;;
		*) continue ;;
		esac
		name=${want#\# }; name=${name%%[= ]*}
		got=$(grep -E "^($name=|# $name is not set)" "$obj/.config" ||
			echo "# $name is not set")
		if [ "$got" != "$want" ]; then
			echo "kernel: wanted '$want', the config has '$got'" >&2
			missing=1
		fi
	done < <(cat "$@")
	return $missing
}

# Objects a build compiles when no build of that name has been counted
# yet: a cold debug build of the v13 series compiled 1,264 (in 662 s on
# this project's 2-core host, 2026-12-07).
NOFD_OBJECTS_GUESS=1264

nofd_build() {
	local src=$1 obj=$2 target=$3 name=$4 done=0 start=$SECONDS last=0
	local count=$NOFD_CACHE_DIR/objects-$4 total tty=0 line rc cold=1
	total=$(cat "$count" 2>/dev/null || echo $NOFD_OBJECTS_GUESS)
	[ ! -e "$obj/vmlinux" ] || cold=0	# only a cold build sets the count
	[ -t 1 ] && tty=1
	while IFS= read -r line; do
		case $line in
		"  CC "*|"  AS "*) done=$((done + 1)) ;;
		"  "[A-Z]*|make*"ing directory"*) continue ;;
		*) [ $tty = 0 ] || echo; echo "$line"; continue ;;
		esac
		if [ $tty = 1 ]; then
			printf '\rkernel: %s: %d of ~%d objects, %d s ' "$name" \
				$done "$total" $((SECONDS - start))
		elif [ $((SECONDS - last)) -ge 30 ]; then
			echo "kernel: $name: $done of ~$total objects, $((SECONDS - start)) s"
			last=$SECONDS
		fi
	done < <(make -C "$src" O="$obj" ARCH=x86_64 -j"$(nproc)" "$target" 2>&1)
	rc=0
	wait $! || rc=$?
	[ $tty = 0 ] || echo
	if [ $rc = 0 ] && [ $cold = 1 ]; then
		mkdir -p "$NOFD_CACHE_DIR" && echo $done >"$count"
	fi
	echo "kernel: $name: $done objects compiled in $((SECONDS - start)) s"
	return $rc
}

# kernel/append-merge, built for this machine when its source is newer.
nofd_append_merge() {
	local bin=${NOFD_CACHE:-/var/cache/nofd}/bin/append-merge
	local c=$NOFD_TOP/kernel/append-merge.c
	if [ ! -x "$bin" ] || [ "$c" -nt "$bin" ]; then
		mkdir -p "$(dirname "$bin")"
		gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$bin.tmp" "$c" &&
			mv "$bin.tmp" "$bin" || return 2
	fi
	"$bin" "$@"
}

# Resolve the conflicts of an interrupted git am -3 or cherry-pick, if
# every one is two appends to one list; the files named on stdout.
nofd_resolve_appends() {
	local files
	mapfile -t files < <(git diff --name-only --diff-filter=U)
	[ ${#files[@]} -gt 0 ] && nofd_append_merge "${files[@]}" >&2 &&
		git add -f -- "${files[@]}" && echo "${files[@]}"
}

nofd_am_stacked() {
	local p how
	# a tree of its own may have no identity: the committer is nofd
	local -x GIT_COMMITTER_NAME=${GIT_COMMITTER_NAME:-nofd}
	local -x GIT_COMMITTER_EMAIL=${GIT_COMMITTER_EMAIL:-nofd@localhost}
	for p in "$@"; do
		git am -q "$p" >/dev/null 2>&1 && continue
		git am --abort 2>/dev/null || true
		git -c merge.conflictStyle=diff3 am -q -3 "$p" >/dev/null 2>&1 && continue
		if how=$(nofd_resolve_appends) &&
		   GIT_EDITOR=true git am -q --continue; then
			echo "kernel: $(basename "$p"): its entries after the earlier topics' in $how"
			continue
		fi
		git am --abort 2>/dev/null || true
		echo "kernel: $(basename "$p") does not apply" >&2
		return 1
	done
}

nofd_pick_alone() {
	local how
	local -x GIT_COMMITTER_NAME=${GIT_COMMITTER_NAME:-nofd}
	local -x GIT_COMMITTER_EMAIL=${GIT_COMMITTER_EMAIL:-nofd@localhost}
	git -c merge.conflictStyle=diff3 cherry-pick "$@" >/dev/null 2>&1 && return
	while [ -f "$(git rev-parse --git-path CHERRY_PICK_HEAD)" ]; do
		how=$(nofd_resolve_appends) || break
		echo "kernel: $(git log -1 --format=%s CHERRY_PICK_HEAD): alone, without the earlier topics' entries in $how"
		GIT_EDITOR=true git -c merge.conflictStyle=diff3 cherry-pick --continue >/dev/null 2>&1 && return
	done
	git cherry-pick --abort 2>/dev/null || true
	return 1
}

nofd_apply_series() {
	local t name need p n x stack tag=0
	local -x GIT_COMMITTER_NAME=${GIT_COMMITTER_NAME:-nofd}
	local -x GIT_COMMITTER_EMAIL=${GIT_COMMITTER_EMAIL:-nofd@localhost}
	[ "${1:-}" != --tag ] || tag=1
	stack=$(git symbolic-ref --short HEAD) || return 1
	for t in $(nofd_topics); do
		name=$(basename "$t")
		mapfile -t p < <(nofd_topic_patches "$t")
		git checkout -q -B "alone/$name" nofd-base
		for need in $(nofd_topic_needs "$t"); do
			mapfile -t n < <(nofd_topic_patches "$need")
			nofd_am_stacked "${n[@]}" >/dev/null || return 1
		done
		if ! git am -q "${p[@]}"; then
			git am --abort 2>/dev/null || true
			echo "kernel: $name does not apply alone onto nofd-base and what it needs" >&2
			return 1
		fi
		git checkout -q "$stack"
		for x in "${p[@]}"; do
			echo "kernel: applying $(basename "$x")"
			nofd_am_stacked "$x" || return 1
		done
		git branch -q -D "alone/$name"
		[ $tag = 0 ] || git tag -f "nofd-topic/$name" >/dev/null
	done
}
