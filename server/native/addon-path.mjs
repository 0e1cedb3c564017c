// Where node-gyp puts the malloc addon (binding.gyp's target "malloc", a Release build), relative to the repository
// root. Plain JavaScript so that the build scripts (scripts/build-native.mjs, scripts/build-if-needed.mjs), which run
// with node before anything is compiled, and the loader (malloc.ts) name the same file.

/** The built addon's path from the repository root. */
export const MALLOC_ADDON = "server/native/build/Release/malloc.node";
