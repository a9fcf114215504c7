/* textlib.h - the libraries that find, shape and draw text (fontconfig,
 * HarfBuzz, FreeType), loaded with dlopen the first time text is drawn, so
 * that no other command pays for loading them. Used only by text.c. */
#ifndef POYO_TEXTLIB_H
#define POYO_TEXTLIB_H

#include <fontconfig/fontconfig.h>
#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_BBOX_H
#include FT_OUTLINE_H
#include FT_STROKER_H
#include <hb.h>

#include "util/error.h"

/* The libraries by their Debian 12 sonames, and every function text.c calls
 * in them: X(library, function). */
#define TEXTLIB_SONAMES(X)                                                         \
    X(TEXTLIB_FT, "libfreetype.so.6") X(TEXTLIB_HB, "libharfbuzz.so.0")           \
    X(TEXTLIB_FC, "libfontconfig.so.1")
#define TEXTLIB_FUNCTIONS(X)                                                       \
    X(TEXTLIB_FT, FT_Init_FreeType)                                                \
    X(TEXTLIB_FT, FT_Done_FreeType)                                                \
    X(TEXTLIB_FT, FT_New_Face)                                                     \
    X(TEXTLIB_FT, FT_Done_Face)                                                    \
    X(TEXTLIB_FT, FT_Get_Char_Index)                                               \
    X(TEXTLIB_FT, FT_Select_Size)                                                  \
    X(TEXTLIB_FT, FT_Load_Glyph)                                                   \
    X(TEXTLIB_FT, FT_Outline_New)                                                  \
    X(TEXTLIB_FT, FT_Outline_Done)                                                 \
    X(TEXTLIB_FT, FT_Outline_Copy)                                                 \
    X(TEXTLIB_FT, FT_Outline_Transform)                                            \
    X(TEXTLIB_FT, FT_Outline_Translate)                                            \
    X(TEXTLIB_FT, FT_Outline_EmboldenXY)                                           \
    X(TEXTLIB_FT, FT_Outline_Get_BBox)                                             \
    X(TEXTLIB_FT, FT_Outline_Render)                                               \
    X(TEXTLIB_FT, FT_Stroker_New)                                                  \
    X(TEXTLIB_FT, FT_Stroker_Set)                                                  \
    X(TEXTLIB_FT, FT_Stroker_ParseOutline)                                         \
    X(TEXTLIB_FT, FT_Stroker_GetCounts)                                            \
    X(TEXTLIB_FT, FT_Stroker_Export)                                               \
    X(TEXTLIB_FT, FT_Stroker_Done)                                                 \
    X(TEXTLIB_HB, hb_blob_create_from_file_or_fail)                                \
    X(TEXTLIB_HB, hb_blob_destroy)                                                 \
    X(TEXTLIB_HB, hb_face_create)                                                  \
    X(TEXTLIB_HB, hb_face_destroy)                                                 \
    X(TEXTLIB_HB, hb_face_get_upem)                                                \
    X(TEXTLIB_HB, hb_font_create)                                                  \
    X(TEXTLIB_HB, hb_font_destroy)                                                 \
    X(TEXTLIB_HB, hb_buffer_create)                                                \
    X(TEXTLIB_HB, hb_buffer_destroy)                                               \
    X(TEXTLIB_HB, hb_buffer_clear_contents)                                        \
    X(TEXTLIB_HB, hb_buffer_add_utf8)                                              \
    X(TEXTLIB_HB, hb_buffer_set_direction)                                         \
    X(TEXTLIB_HB, hb_buffer_guess_segment_properties)                              \
    X(TEXTLIB_HB, hb_buffer_allocation_successful)                                 \
    X(TEXTLIB_HB, hb_buffer_get_glyph_infos)                                       \
    X(TEXTLIB_HB, hb_buffer_get_glyph_positions)                                   \
    X(TEXTLIB_HB, hb_shape)                                                        \
    X(TEXTLIB_FC, FcInitLoadConfigAndFonts)                                        \
    X(TEXTLIB_FC, FcConfigDestroy)                                                 \
    X(TEXTLIB_FC, FcConfigSubstitute)                                              \
    X(TEXTLIB_FC, FcDefaultSubstitute)                                             \
    X(TEXTLIB_FC, FcNameParse)                                                     \
    X(TEXTLIB_FC, FcPatternDuplicate)                                              \
    X(TEXTLIB_FC, FcPatternDestroy)                                                \
    X(TEXTLIB_FC, FcPatternAddBool)                                                \
    X(TEXTLIB_FC, FcPatternAddCharSet)                                             \
    X(TEXTLIB_FC, FcPatternGetString)                                              \
    X(TEXTLIB_FC, FcPatternGetInteger)                                             \
    X(TEXTLIB_FC, FcPatternGetBool)                                                \
    X(TEXTLIB_FC, FcPatternGetCharSet)                                             \
    X(TEXTLIB_FC, FcCharSetCreate)                                                 \
    X(TEXTLIB_FC, FcCharSetAddChar)                                                \
    X(TEXTLIB_FC, FcCharSetHasChar)                                                \
    X(TEXTLIB_FC, FcCharSetDestroy)                                                \
    X(TEXTLIB_FC, FcFontMatch)                                                     \
    X(TEXTLIB_FC, FcFontSort)                                                      \
    X(TEXTLIB_FC, FcFontRenderPrepare)                                             \
    X(TEXTLIB_FC, FcFontSetDestroy)                                                \
    X(TEXTLIB_FC, FcStrCmpIgnoreCase)

/* One pointer per function, named and typed as the library declares it. */
typedef struct textlib {
#define TEXTLIB_FIELD(lib, fn) __typeof__(fn) *fn;
    TEXTLIB_FUNCTIONS(TEXTLIB_FIELD)
#undef TEXTLIB_FIELD
} textlib;

/* Loads the libraries and resolves the table once per process and sets *out
 * to it (never freed). Fails with POYO_ERR_INPUT, "text needs libfreetype6,
 * libharfbuzz0b and libfontconfig1: " and the loader's reason, when a
 * library or a function is missing; every later call fails the same way. */
poyo_status textlib_load(const textlib **out, poyo_error *err);

#endif
