#!/usr/bin/env bash
# Fetch what scripts/gpu_check.sh needs on a GPU machine that reaches no package registry.
# Run it on a Debian 12 (amd64) machine that has the registry, from the repository:
#
#   scripts/gpu_bundle.sh [DIR]        (default .gpu-bundle, ignored by git)
#
# It downloads with `apt-get download` the Debian packages that the build and the tests need
# and that a bare CUDA machine (nvcc, CMake, g++, the NVIDIA driver) lacks, and generates
# the OpenGL loader once with glad, so that no Python package has to travel. DIR then holds
#   debs/*.deb         the packages, unpacked by gpu_check.sh with dpkg -x into a prefix
#   glad/              glad's output and the arguments it was made with
#   MANIFEST           packages, versions and sizes; dependencies left to the GPU machine
# Nothing is installed. The total is kept well under the 64 MiB a device call carries
# (about 10 MiB; see docs/gpu-check.md). Needs: apt-get, dpkg-deb, glad (python3-glad).
set -euo pipefail
cd "$(dirname "$0")/.."

dir=${1:-.gpu-bundle}
limit_mib=48   # refuse a bundle above this: it must travel beside the working tree

# The packages, one group per need. Each was checked with `apt-cache depends`: what they
# depend on beyond this list is either the C library, an alternative already listed (libgl-dev
# for libgl1-mesa-dev, libglfw3 for libglfw3-wayland), the GL vendor library that the NVIDIA
# driver provides (libGLX_nvidia for libglx-mesa0), or sources and docs the build never reads
# (googletest's sources: libgtest-dev ships the built libraries). MANIFEST lists them.
packages=(
  # GLFW (pkg-config glfw3) and the X libraries it links or opens with dlopen at run time
  libglfw3-dev libglfw3 libxrandr2 libxcursor1 libxi6 libxinerama1 libxxf86vm1 libxext6
  libxrender1 libxfixes3 libx11-xcb1
  # Xlib (find_package(X11): the app's lost-display handler) and what libX11 needs
  libx11-dev libx11-6 libx11-data libxcb1-dev libxcb1 libxau-dev libxau6 libxdmcp-dev libxdmcp6
  x11proto-dev xtrans-dev libpthread-stubs0-dev libbsd0 libmd0
  # OpenGL headers and the GLVND libraries (find_package(OpenGL)); the driver adds its vendor
  # library (libGLX_nvidia) to these
  libgl-dev libglx-dev libopengl-dev libgl1 libglx0 libglvnd0 libopengl0
  # EGL's headers and GLVND's libEGL.so.1 (the interop test's context without X; the driver
  # adds libEGL_nvidia, and Mesa's libegl-mesa0, which libegl1 names, is not needed there)
  libegl-dev libegl1
  # Dear ImGui (pkg-config imgui, which requires stb), stb, GLM, nlohmann/json
  libimgui-dev libstb-dev libstb0 libglm-dev nlohmann-json3-dev
  # tinyobjloader (find_package(tinyobjloader): the mesh colliders' OBJ files) and its library
  libtinyobjloader-dev libtinyobjloader2rc10
  # GoogleTest and GoogleMock (find_package(GTest): the config names both)
  libgtest-dev libgmock-dev
  # Bullet (pkg-config bullet): the rigid bodies' contacts (src/sim/bodies); the libraries
  # themselves are libbullet3.24's
  libbullet-dev libbullet3.24
  # pkg-config itself (pkgconf), which CMake's FindPkgConfig needs
  pkgconf pkgconf-bin libpkgconf3
)

# The glad command of third_party/CMakeLists.txt, less its --out-path: gpu_check.sh's shim
# copies this output when CMake asks for exactly these arguments, and fails otherwise.
glad_args=(--quiet --reproducible --api gl:core=4.5 --extensions= c)

die() { echo "gpu_bundle: $*" >&2; exit 1; }

[[ $(dpkg --print-architecture 2>/dev/null) == amd64 ]] ||
  die "run this on an amd64 Debian machine (the GPU machines are x86-64)"
command -v apt-get >/dev/null || die "apt-get not found: run this on Debian 12"
command -v glad >/dev/null ||
  die "glad not found: apt-get install python3-glad (it generates the OpenGL loader once, here)"
grep -q -- '--api gl:core=4.5 --extensions=' third_party/CMakeLists.txt ||
  die "third_party/CMakeLists.txt no longer runs glad with '--api gl:core=4.5 --extensions=':" \
      "update glad_args in $0"

sandbox=()
[[ $(id -u) == 0 ]] && sandbox=(-o APT::Sandbox::User=root)  # root: no _apt warning per file

rm -rf "$dir.tmp"
mkdir -p "$dir.tmp/debs" "$dir.tmp/glad"
echo "gpu_bundle: downloading ${#packages[@]} Debian packages into $dir/debs"
if ! (cd "$dir.tmp/debs" && apt-get "${sandbox[@]}" -q download "${packages[@]}" >/dev/null); then
  echo "gpu_bundle: apt-get download failed; updating the package lists once and retrying"
  sudo=()
  [[ $(id -u) != 0 ]] && sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  (cd "$dir.tmp/debs" && apt-get "${sandbox[@]}" -q download "${packages[@]}" >/dev/null)
fi

echo "gpu_bundle: generating the OpenGL loader with glad ${glad_args[*]}"
glad "${glad_args[@]:0:${#glad_args[@]}-1}" --out-path "$dir.tmp/glad/out" "${glad_args[-1]}"
printf '%s\n' "${glad_args[@]}" > "$dir.tmp/glad/ARGS"

# MANIFEST: what is in the bundle, and what its packages need that it does not carry.
{
  echo "# Tidepool GPU bundle, made $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(sed -n "s/^PRETTY_NAME=//p" /etc/os-release | tr -d '"')"
  echo "# package version bytes"
  for deb in "$dir.tmp"/debs/*.deb; do
    printf '%s %s %s\n' "$(dpkg-deb -f "$deb" Package)" "$(dpkg-deb -f "$deb" Version)" \
      "$(stat -c %s "$deb")"
  done
  # The newest C library version any of the bundle's programs or libraries asks for.
  glibc=$(for deb in "$dir.tmp"/debs/*.deb; do dpkg-deb --fsys-tarfile "$deb"; done |
          strings | grep -oE '^GLIBC_2\.[0-9]+$' | sed 's/GLIBC_//' | sort -V | tail -n1)
  echo "# needs glibc >= ${glibc:-2.17}"
  echo "# dependencies not carried (the GPU machine's C library, alternatives, sources, docs):"
  apt-cache depends --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces \
    --no-enhances "${packages[@]}" 2>/dev/null |
    awk '/Depends:/ {print $2}' | sort -u | while read -r dep; do
      [[ " ${packages[*]} " == *" $dep "* ]] || echo "#   $dep"
    done
} > "$dir.tmp/MANIFEST"

rm -rf "$dir"
mv "$dir.tmp" "$dir"

# Ignored here and in every clone (.gitignore has /.gpu-bundle*/ too).
if [[ -d .git ]]; then
  mkdir -p .git/info && touch .git/info/exclude
  grep -qxF "/$dir/" .git/info/exclude || echo "/$dir/" >> .git/info/exclude
fi

bytes=$(du -sb "$dir" | cut -f1)
count=$(find "$dir/debs" -name '*.deb' | wc -l)
awk -v d="$dir" -v n="$count" -v b="$bytes" \
  'BEGIN { printf "gpu_bundle: %s: %d packages and glad, %.1f MiB\n", d, n, b / 1048576 }'
if ((bytes > limit_mib * 1048576)); then
  die "the bundle is over $limit_mib MiB: it would not travel beside the working tree (64 MiB)"
fi
echo "gpu_bundle: carry it with the checkout (device tool: carry [\"$dir\"]), then run scripts/gpu_check.sh"
