#!/usr/bin/env bash
# Installs the bilingual dictionary translated borrowings read at run time: Debian's
# mueller7-dict (the Mueller English-Russian dictionary, GPL; Tessera reads it from
# /usr/share/dictd and never ships it). Nothing to do when it is there. Without apt-get
# (or the rights to run it) it says what to install and succeeds: checks then run
# without looking across languages, and their reports say so.
set -euo pipefail
if [ -f /usr/share/dictd/mueller7.index ]; then
  exit 0
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null; then sudo="sudo"; fi
fi
if command -v apt-get >/dev/null && { [ -z "$sudo" ] && [ "$(id -u)" = 0 ] || [ -n "$sudo" ]; }; then
  $sudo apt-get update -qq && $sudo apt-get install -y -qq mueller7-dict >/dev/null && exit 0
fi
echo "install-dictionaries: could not install Debian's mueller7-dict; translated borrowings stay off" >&2
echo "  (install it with your package manager, or put FROM-TO.tsv word lists in a folder named by TESSERA_DICTIONARIES)" >&2
exit 0
