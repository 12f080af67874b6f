#!/usr/bin/env bash
# Remove the Keepsake bundle installed by install.sh, and (only if you say so) your data.
#
#   ./uninstall.sh [--prefix DIR] [--keep-data | --remove-data]
#
# Removes the install folder, the menu entry, the icons and the ~/.local/bin/keepsake link.
# Then asks whether to keep your data (memories, chats, settings, the database key); without a
# terminal and without --remove-data the data is kept. Data folders (platformdirs on Linux):
#   ${XDG_DATA_HOME:-~/.local/share}/Keepsake    database, archive, exports, user models
#   ${XDG_CONFIG_HOME:-~/.config}/Keepsake       settings, db.key (when there is no OS keyring)
#   ${XDG_CACHE_HOME:-~/.cache}/Keepsake
#   ${XDG_STATE_HOME:-~/.local/state}/Keepsake   logs
# or data/ config/ cache/ logs/ under $KEEPSAKE_HOME when that is set.
set -euo pipefail

main() {
    local here data_home prefix data_choice=ask
    here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
    data_home="$(xdg XDG_DATA_HOME "$HOME/.local/share")"
    if [ -f "$here/.keepsake-install" ]; then
        prefix="$here"
    else
        prefix="${KEEPSAKE_INSTALL_DIR:-$data_home/keepsake-app}"
    fi
    while [ $# -gt 0 ]; do
        case "$1" in
            --prefix) prefix="$2"; shift 2 ;;
            --prefix=*) prefix="${1#--prefix=}"; shift ;;
            --keep-data) data_choice=keep; shift ;;
            --remove-data) data_choice=remove; shift ;;
            -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
            *) echo "uninstall.sh: unknown option $1" >&2; exit 2 ;;
        esac
    done
    prefix="${prefix%/}"

    # -- the application ---------------------------------------------------------------------
    if [ -f "$prefix/.keepsake-install" ]; then
        echo "Removing Keepsake from $prefix"
    elif [ -e "$prefix" ]; then
        echo "uninstall.sh: $prefix has no .keepsake-install marker; not removing it" >&2
        exit 1
    else
        echo "Keepsake is not installed at $prefix (cleaning up menu entry and link anyway)"
    fi
    local apps="$data_home/applications" icons="$data_home/icons/hicolor"
    local entry="$apps/keepsake.desktop"
    if [ -f "$entry" ] && grep -qF "$prefix/keepsake" "$entry"; then
        rm -f "$entry"
        rm -f "$icons"/{48x48,128x128,256x256}/apps/keepsake.png "$icons/scalable/apps/keepsake.svg"
    elif [ -f "$entry" ]; then
        echo "  menu entry $entry belongs to another install; left alone"
    fi
    local link="$HOME/.local/bin/keepsake"
    if [ -L "$link" ] && [ "$(readlink "$link")" = "$prefix/keepsake" ]; then
        rm -f "$link"
    fi
    if [ -f "$prefix/.keepsake-install" ]; then
        rm -rf -- "$prefix"
    fi
    command -v update-desktop-database >/dev/null && update-desktop-database -q "$apps" 2>/dev/null || true
    command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t "$icons" 2>/dev/null || true

    # -- your data ---------------------------------------------------------------------------
    local dirs=() d
    if [ -n "${KEEPSAKE_HOME:-}" ]; then
        for d in data config cache logs; do dirs+=("${KEEPSAKE_HOME%/}/$d"); done
    else
        dirs=("$data_home/Keepsake"
              "$(xdg XDG_CONFIG_HOME "$HOME/.config")/Keepsake"
              "$(xdg XDG_CACHE_HOME "$HOME/.cache")/Keepsake"
              "$(xdg XDG_STATE_HOME "$HOME/.local/state")/Keepsake")
    fi
    local existing=()
    for d in "${dirs[@]}"; do [ -e "$d" ] && existing+=("$d"); done
    if [ ${#existing[@]} -eq 0 ]; then
        echo "No Keepsake data found. Done."
        return 0
    fi
    echo "Your Keepsake data (memories, chats, settings, database key):"
    printf '  %s\n' "${existing[@]}"
    if [ "$data_choice" = ask ]; then
        if [ -t 0 ]; then
            local answer
            read -r -p "Keep your data? Removing it cannot be undone. [Y/n] " answer || answer=y
            case "$answer" in n|N|no|NO|No) data_choice=remove ;; *) data_choice=keep ;; esac
        else
            data_choice=keep
        fi
    fi
    if [ "$data_choice" = keep ]; then
        echo "Kept. A later install finds it again; to remove it later, delete the folders above."
        return 0
    fi
    for d in "${existing[@]}"; do rm -rf -- "$d"; done
    if [ -n "${KEEPSAKE_HOME:-}" ]; then rmdir "$KEEPSAKE_HOME" 2>/dev/null || true; fi
    # The database key, when it is in the OS keyring (service "keepsake").
    if command -v secret-tool >/dev/null; then
        secret-tool clear service keepsake 2>/dev/null || true
        echo "Data removed, and the database key in the keyring (service \"keepsake\")."
    else
        echo "Data removed. If your desktop keeps passwords in a keyring, delete its \"keepsake\" entries"
        echo "(GNOME: Passwords and Keys; KDE: KWalletManager); the key is useless without the data."
    fi
}

# $1 = XDG variable name, $2 = default; like platformdirs, only an absolute value counts.
xdg() {
    local v="${!1:-}"
    case "$v" in /*) printf '%s' "$v" ;; *) printf '%s' "$2" ;; esac
}

main "$@"
