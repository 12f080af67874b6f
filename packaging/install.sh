#!/usr/bin/env bash
# Install the Keepsake bundle for the current user (no root needed).
#
#   ./install.sh [--prefix DIR] [--no-cli-link]
#
# Run from the bundle folder (dist/keepsake/install.sh) or as packaging/install.sh in a checkout
# after `make package`. It
#   * copies the bundle to DIR (default ${XDG_DATA_HOME:-~/.local/share}/keepsake-app; an existing
#     install there is replaced, your data is not touched: it lives elsewhere, see README);
#   * registers the menu entry ~/.local/share/applications/keepsake.desktop and the icons
#     (hicolor theme: 48, 128, 256 px and scalable);
#   * links ~/.local/bin/keepsake to the bundle's command (unless something else is there).
# Undo with DIR/uninstall.sh.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
data_home="${XDG_DATA_HOME:-$HOME/.local/share}"
prefix="${KEEPSAKE_INSTALL_DIR:-$data_home/keepsake-app}"
cli_link=1

while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) prefix="$2"; shift 2 ;;
        --prefix=*) prefix="${1#--prefix=}"; shift ;;
        --no-cli-link) cli_link=0; shift ;;
        -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "install.sh: unknown option $1" >&2; exit 2 ;;
    esac
done

if [ -x "$here/keepsake" ] && [ -d "$here/_internal" ]; then
    bundle="$here"
elif [ -x "$here/../dist/keepsake/keepsake" ]; then
    bundle="$(cd "$here/../dist/keepsake" && pwd)"
else
    echo "install.sh: no bundle found next to this script or in dist/keepsake (run \`make package\` first)" >&2
    exit 1
fi

case "$prefix" in /*) ;; *) prefix="$PWD/$prefix" ;; esac
prefix="${prefix%/}"
if [ "$prefix" = "$bundle" ]; then
    echo "install.sh: the bundle is already at $prefix"
else
    if [ -e "$prefix" ] && [ ! -f "$prefix/.keepsake-install" ]; then
        echo "install.sh: $prefix exists and is not a Keepsake install; not touching it" >&2
        exit 1
    fi
    echo "Installing Keepsake to $prefix"
    mkdir -p "$(dirname "$prefix")"
    staging="$prefix.new.$$"
    rm -rf "$staging"
    cp -a "$bundle" "$staging"
    touch "$staging/.keepsake-install"
    if [ -e "$prefix" ]; then
        old="$prefix.old.$$"
        mv "$prefix" "$old"
        mv "$staging" "$prefix"
        rm -rf "$old"
    else
        mv "$staging" "$prefix"
    fi
fi
touch "$prefix/.keepsake-install"

# Icons (hicolor theme).
icons="$data_home/icons/hicolor"
for size in 48x48 128x128 256x256 scalable; do
    src="$(ls "$prefix/share/icons/hicolor/$size/apps/keepsake."* 2>/dev/null | head -n 1 || true)"
    [ -n "$src" ] || continue
    mkdir -p "$icons/$size/apps"
    cp "$src" "$icons/$size/apps/"
done

# Menu entry with the absolute path (quoted for the Exec key: \ " ` $ escaped, % doubled).
desktop_quote() {
    local s="$1"
    s="${s//\\/\\\\}"; s="${s//\"/\\\"}"; s="${s//\`/\\\`}"; s="${s//\$/\\\$}"; s="${s//%/%%}"
    s="\"$s\""
    printf '%s' "${s//\\/\\\\}"  # the desktop file's own string escaping doubles backslashes again
}
apps="$data_home/applications"
mkdir -p "$apps"
exec_q="$(desktop_quote "$prefix/keepsake")"
tmp="$apps/.keepsake.desktop.$$"
while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in
        Exec=*) printf 'Exec=%s app\n' "$exec_q" ;;
        TryExec=*) printf 'TryExec=%s\n' "$prefix/keepsake" ;;
        *) printf '%s\n' "$line" ;;
    esac
done < "$prefix/share/applications/keepsake.desktop" > "$tmp"
chmod 0644 "$tmp"
mv "$tmp" "$apps/keepsake.desktop"

# Command-line link, only where nothing else of that name is.
if [ "$cli_link" = 1 ]; then
    bin="$HOME/.local/bin"
    link="$bin/keepsake"
    ours=0
    if [ -L "$link" ]; then
        [ "$(readlink "$link")" = "$prefix/keepsake" ] && ours=1
    elif [ ! -e "$link" ]; then
        ours=1
    fi
    if [ "$ours" = 1 ]; then
        mkdir -p "$bin"
        ln -sfn "$prefix/keepsake" "$link"
        echo "Command line: $link"
        case ":$PATH:" in *":$bin:"*) ;; *) echo "  ($bin is not on your PATH; add it to use \`keepsake\` in a terminal)";; esac
    else
        echo "Command line: $link already exists and is not ours; left alone (use $prefix/keepsake)"
    fi
fi

command -v update-desktop-database >/dev/null && update-desktop-database -q "$apps" 2>/dev/null || true
command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t "$icons" 2>/dev/null || true

# The X11 platform plugin needs a few system xcb libraries the bundle does not carry.
if [ -z "${WAYLAND_DISPLAY:-}" ] && command -v ldd >/dev/null; then
    missing="$(LD_LIBRARY_PATH="$prefix/_internal" ldd "$prefix/_internal/PySide6/Qt/plugins/platforms/libqxcb.so" 2>/dev/null \
        | awk '/not found/ {print $1}' | tr '\n' ' ' || true)"
    if [ -n "$missing" ]; then
        echo "Note: the X11 display plugin needs: $missing"
        echo "  Debian/Ubuntu: sudo apt install libxcb-icccm4 libxcb-keysyms1 libxcb-cursor0 libxkbcommon-x11-0"
        echo "  Fedora: sudo dnf install xcb-util-wm xcb-util-keysyms xcb-util-cursor libxkbcommon-x11"
    fi
fi

echo "Done. Start Keepsake from your applications menu, or run: $prefix/keepsake"
echo "Uninstall: $prefix/uninstall.sh"
