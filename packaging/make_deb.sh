#!/usr/bin/env bash
# Wrap the one-folder bundle in a Debian package (no root needed to build):
#
#   bash packaging/make_deb.sh dist/keepsake VERSION     -> dist/keepsake_VERSION_amd64.deb
#
#   /opt/keepsake/                        the bundle (install.sh / uninstall.sh left out: dpkg owns it)
#   /usr/bin/keepsake -> /opt/keepsake/keepsake
#   /usr/share/applications/keepsake.desktop, /usr/share/icons/hicolor/*/apps/keepsake.{png,svg}
#
# Install with `sudo apt install ./dist/keepsake_*.deb` (apt pulls the Depends), remove with
# `sudo apt remove keepsake`: dpkg only removes the files it installed, so a person's data
# (~/.local/share/Keepsake, ~/.config/Keepsake, the keyring entry) stays where it is.
set -euo pipefail

BUNDLE="$(cd "$1" && pwd)"
VERSION="$2"
OUT_DIR="$(dirname "$BUNDLE")"
DEB="$OUT_DIR/keepsake_${VERSION}_amd64.deb"
STAGE="$(mktemp -d "${TMPDIR:-/tmp}/keepsake-deb.XXXXXX")"
trap 'rm -rf "$STAGE"' EXIT

# The display stack the bundled Qt plugins link against but do not carry (X11/xcb, OpenGL/EGL,
# fonts), plus the glibc the bundle was built against. Names exist in Debian 12 and Ubuntu 22.04+.
GLIBC="$(getconf GNU_LIBC_VERSION | grep -oE "[0-9]+\.[0-9]+$")"  # "glibc 2.36" (no pipe that can SIGPIPE)
DEPENDS="libc6 (>= $GLIBC), libgl1, libegl1, libfontconfig1, libfreetype6, libx11-6, libx11-xcb1, libxcb1, \
libxkbcommon0, libxkbcommon-x11-0, libxcb-cursor0, libxcb-icccm4, libxcb-keysyms1, libxcb-image0, \
libxcb-render-util0, libxcb-randr0, libxcb-shape0, libxcb-xfixes0, libxcb-xkb1"

install -d "$STAGE/opt" "$STAGE/usr/bin" "$STAGE/DEBIAN"
cp -a "$BUNDLE" "$STAGE/opt/keepsake"
rm -f "$STAGE/opt/keepsake/install.sh" "$STAGE/opt/keepsake/uninstall.sh"
# Menu entry and icons where the desktop looks for them; the copies under share/ stay in /opt.
install -d "$STAGE/usr/share/applications"
install -m 0644 "$BUNDLE/share/applications/keepsake.desktop" "$STAGE/usr/share/applications/keepsake.desktop"
(cd "$BUNDLE/share" && find icons -type f) | while read -r icon; do
    install -D -m 0644 "$BUNDLE/share/$icon" "$STAGE/usr/share/$icon"
done
ln -s /opt/keepsake/keepsake "$STAGE/usr/bin/keepsake"

SIZE_KB="$(du -sk "$STAGE" | cut -f1)"
cat > "$STAGE/DEBIAN/control" <<EOF
Package: keepsake
Version: $VERSION
Architecture: amd64
Maintainer: Keepsake developers <keepsake@localhost>
Installed-Size: $SIZE_KB
Depends: $DEPENDS
Section: utils
Priority: optional
Homepage: https://localhost/keepsake
Description: local-first personal assistant with an inspectable memory
 Chat with a local llama.cpp model, fully offline. Keepsake remembers what
 matters across conversations; you can see every memory, where it came from,
 when it was true and how it changed, and edit or delete it for real.
 Both default models (SmolLM2-135M, all-MiniLM-L6-v2) are included.
EOF
# Menus and icon caches refresh after install and removal; nothing touches anyone's data.
for script in postinst postrm; do
    cat > "$STAGE/DEBIAN/$script" <<'EOF'
#!/bin/sh
set -e
if command -v update-desktop-database >/dev/null 2>&1; then update-desktop-database -q /usr/share/applications || true; fi
if command -v gtk-update-icon-cache >/dev/null 2>&1; then gtk-update-icon-cache -q -t /usr/share/icons/hicolor || true; fi
exit 0
EOF
    chmod 0755 "$STAGE/DEBIAN/$script"
done

rm -f "$OUT_DIR"/keepsake_*_amd64.deb
# gzip: readable by every dpkg (zstd needs dpkg >= 1.21.18), and fast on 2 cores.
dpkg-deb --root-owner-group -Zgzip -z6 --build "$STAGE" "$DEB" >/dev/null
echo "$DEB ($(du -sh "$DEB" | cut -f1), installs $((SIZE_KB / 1024)) MiB)"
