#!/usr/bin/env bash
# Installs the Debian 12 packages hooke builds and tests with. Idempotent and non-interactive;
# safe to run on every build. Needs root (or sudo).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libglm-dev libgtest-dev libeigen3-dev nlohmann-json3-dev libcli11-dev
  libspdlog-dev libglfw3-dev libimgui-dev python3-glad
  clang libclang-rt-14-dev
  libegl-dev libgl-dev libgl1-mesa-dri libegl-mesa0 libstb-dev xvfb
  fonts-dejavu-core
)

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
