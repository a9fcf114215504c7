/* svglib.h - the libraries that read and draw an SVG (librsvg, cairo, GIO,
 * GObject, GLib, libxml2), loaded with dlopen the first time an SVG is
 * decoded, so that no other input pays for loading them. Used only by image.c. */
#ifndef POYO_SVGLIB_H
#define POYO_SVGLIB_H

#include <cairo.h>
#include <librsvg/rsvg.h>
#include <libxml/parser.h>
#include <libxml/SAX2.h>
#include <libxml/parserInternals.h>

#include "util/error.h"

/* The libraries by their Debian 12 sonames, and every function image.c calls
 * in them: X(library, function). GObject's g_object_ref is also a macro, so
 * a call through the table is written (lib->g_object_ref)(obj). */
#define SVGLIB_SONAMES(X)                                                          \
    X(SVGLIB_RSVG, "librsvg-2.so.2") X(SVGLIB_CAIRO, "libcairo.so.2")              \
    X(SVGLIB_GIO, "libgio-2.0.so.0") X(SVGLIB_GOBJECT, "libgobject-2.0.so.0")     \
    X(SVGLIB_GLIB, "libglib-2.0.so.0") X(SVGLIB_XML2, "libxml2.so.2")
#define SVGLIB_FUNCTIONS(X)                                                        \
    X(SVGLIB_RSVG, rsvg_handle_new_from_stream_sync)                               \
    X(SVGLIB_RSVG, rsvg_handle_set_dpi)                                            \
    X(SVGLIB_RSVG, rsvg_handle_get_intrinsic_size_in_pixels)                       \
    X(SVGLIB_RSVG, rsvg_handle_get_intrinsic_dimensions)                           \
    X(SVGLIB_RSVG, rsvg_handle_render_document)                                    \
    X(SVGLIB_CAIRO, cairo_image_surface_create_for_data)                           \
    X(SVGLIB_CAIRO, cairo_create)                                                  \
    X(SVGLIB_CAIRO, cairo_status)                                                  \
    X(SVGLIB_CAIRO, cairo_destroy)                                                 \
    X(SVGLIB_CAIRO, cairo_surface_finish)                                          \
    X(SVGLIB_CAIRO, cairo_surface_destroy)                                         \
    X(SVGLIB_GIO, g_memory_input_stream_new_from_data)                             \
    X(SVGLIB_GOBJECT, g_object_ref)                                                \
    X(SVGLIB_GOBJECT, g_object_unref)                                              \
    X(SVGLIB_GLIB, g_error_free)                                                   \
    X(SVGLIB_XML2, xmlInitParser)                                                  \
    X(SVGLIB_XML2, xmlCreateMemoryParserCtxt)                                      \
    X(SVGLIB_XML2, xmlCtxtUseOptions)                                              \
    X(SVGLIB_XML2, xmlSAXVersion)                                                  \
    X(SVGLIB_XML2, xmlSAX2EntityDecl)                                              \
    X(SVGLIB_XML2, xmlParseDocument)                                               \
    X(SVGLIB_XML2, xmlFreeDoc)                                                     \
    X(SVGLIB_XML2, xmlFreeParserCtxt)

/* One pointer per function, named and typed as the library declares it. */
typedef struct svglib {
#define SVGLIB_FIELD(lib, fn) __typeof__(fn) *fn;
    SVGLIB_FUNCTIONS(SVGLIB_FIELD)
#undef SVGLIB_FIELD
} svglib;

/* Loads the libraries and resolves the table once per process (threads may
 * ask at the same time; libxml2 is set up before any of them parses) and sets
 * *out to it (never freed). Fails with POYO_ERR_INPUT, "SVG input needs
 * librsvg2-2: " and the loader's reason, when a library or a function is
 * missing; every later call fails the same way. */
poyo_status svglib_load(const svglib **out, poyo_error *err);

#endif
