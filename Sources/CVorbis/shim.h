#ifndef SLIPSTREAM_CVORBIS_SHIM_H
#define SLIPSTREAM_CVORBIS_SHIM_H

// libvorbis is loaded on first use (dlopen), not linked: only an Ogg Vorbis stream needs it, and
// linking it (with libogg) cost every run of `slipstream` its load at start-up. Only the header is
// used at build time; each slipstream_NAME function below calls libvorbis's NAME, or (library not
// installed) fails as NAME fails: OV_EFAULT, 0 or nothing.
#include <vorbis/codec.h>
#include "../CLazyLibrary/lazy_library.h"

SLIPSTREAM_LAZY_LIBRARY(vorbis, "libvorbis.so.0")

/// The message of a decoder that cannot start because libvorbis is not installed.
static const char *const slipstream_vorbis_missing = "the libvorbis library (libvorbis0a) is not installed";

SLIPSTREAM_LAZY_VOID_FUNCTION(vorbis, vorbis_info_init, (vorbis_info *info), (info))
SLIPSTREAM_LAZY_VOID_FUNCTION(vorbis, vorbis_info_clear, (vorbis_info *info), (info))
SLIPSTREAM_LAZY_VOID_FUNCTION(vorbis, vorbis_comment_init, (vorbis_comment *comment), (comment))
SLIPSTREAM_LAZY_VOID_FUNCTION(vorbis, vorbis_comment_clear, (vorbis_comment *comment), (comment))
SLIPSTREAM_LAZY_FUNCTION(vorbis, int, vorbis_synthesis_headerin, OV_EFAULT,
    (vorbis_info *info, vorbis_comment *comment, ogg_packet *packet), (info, comment, packet))
SLIPSTREAM_LAZY_FUNCTION(vorbis, int, vorbis_synthesis_init, OV_EFAULT, (vorbis_dsp_state *dsp, vorbis_info *info), (dsp, info))
SLIPSTREAM_LAZY_FUNCTION(vorbis, int, vorbis_synthesis_restart, OV_EFAULT, (vorbis_dsp_state *dsp), (dsp))
SLIPSTREAM_LAZY_VOID_FUNCTION(vorbis, vorbis_dsp_clear, (vorbis_dsp_state *dsp), (dsp))
SLIPSTREAM_LAZY_FUNCTION(vorbis, int, vorbis_block_init, OV_EFAULT, (vorbis_dsp_state *dsp, vorbis_block *block), (dsp, block))
SLIPSTREAM_LAZY_FUNCTION(vorbis, int, vorbis_block_clear, OV_EFAULT, (vorbis_block *block), (block))
SLIPSTREAM_LAZY_FUNCTION(vorbis, int, vorbis_synthesis, OV_EFAULT, (vorbis_block *block, ogg_packet *packet), (block, packet))
SLIPSTREAM_LAZY_FUNCTION(vorbis, int, vorbis_synthesis_blockin, OV_EFAULT, (vorbis_dsp_state *dsp, vorbis_block *block), (dsp, block))
SLIPSTREAM_LAZY_FUNCTION(vorbis, int, vorbis_synthesis_pcmout, 0, (vorbis_dsp_state *dsp, float ***pcm), (dsp, pcm))
SLIPSTREAM_LAZY_FUNCTION(vorbis, int, vorbis_synthesis_read, OV_EFAULT, (vorbis_dsp_state *dsp, int samples), (dsp, samples))

#endif
