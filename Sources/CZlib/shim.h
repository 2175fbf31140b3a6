// CZlib — zlib's inflate as Swift sees it (MediaProbe checks PNG image data with it).
//
// zlib's API is plain functions except its initialisers, which are function-like macros passing the header's
// version and sizeof(z_stream) to the real functions (inflateInit2 is inflateInit2_(strm, bits, ZLIB_VERSION,
// (int)sizeof(z_stream))). Swift imports no function-like macros, so the one MediaProbe uses is wrapped:
// - ia_inflate_init2: inflateInit2 with its windowBits (15: a zlib stream, RFC 1950, as PNG's IDAT holds;
//   -15: raw deflate, RFC 1951, as Apple's CgBI PNGs hold). The version check stays zlib's own: the header the
//   package compiles against is the one it passes.
// When it can go: when Swift's clang importer learns function-like macros.
#ifndef INBOX_ASSETS_CZLIB_SHIM_H
#define INBOX_ASSETS_CZLIB_SHIM_H

#include <zlib.h>

/// inflateInit2(stream, windowBits): Z_OK, or Z_MEM_ERROR / Z_STREAM_ERROR / Z_VERSION_ERROR.
static inline int ia_inflate_init2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

#endif
