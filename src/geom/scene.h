/* scene.h - the scene language of `poyo sdf --scene`: text to an sdf_scene in pixels.
 *
 * Coordinates are fractions of the canvas: (0,0) is the top-left corner, (1,1) the
 * bottom-right, y grows DOWN. On a W x H canvas a point (x, y) becomes (x*W, y*H)
 * pixels; every length (radius, half size, corner radius, blend width, period) is
 * multiplied by min(W, H); angles are degrees measured in pixel space.
 *
 * Grammar (whitespace, and '#' comments running to the end of a line, may appear
 * between any two tokens):
 *
 *   scene  := item { [';'] item } [';']
 *   item   := [op] [repeat] shape
 *   op     := 'union'                  plain union (the default between items)
 *           | 'sub'                    carve the shape out of everything to its left
 *           | 'smin(' w ')'            polynomial smooth union, blend width w >= 0
 *           | 'smine(' w ')'           exponential smooth union, w >= 0: sharpness
 *                                      k = 4 ln 2 / w, so like smin(w) the seam sinks by
 *                                      at most w/4 (smine(0) is a plain union)
 *   repeat := 'repeat(' px ',' py [',' nx [',' ny]] ')'
 *                                      copies of the next shape every px across and py
 *                                      down (0 = not along that axis; negative = towards
 *                                      the left / up); nx, ny = number of copies counted
 *                                      from the shape itself, whole numbers 0..1000000,
 *                                      0 or absent = endless
 *   shape  := 'circle(' x ',' y ',' r ')'
 *           | 'box(' x ',' y ',' hw ',' hh ')'              centre and half sizes
 *           | 'rbox(' x ',' y ',' hw ',' hh ',' r ')'       same outer size, corners of
 *                                                          radius r <= min(hw, hh)
 *           | 'segment(' x1 ',' y1 ',' x2 ',' y2 [',' r] ')'  capsule, r = 0 if absent
 *           | 'floor(' y ')'           solid below the line at height y
 *           | 'ceiling(' y ')'         solid above it
 *           | 'left(' x ')'            solid left of the line at x
 *           | 'right(' x ')'           solid right of it
 *           | 'wall(' x ')'            left(x) when x < 0.5, else right(x)
 *           | 'plane(' x ',' y ',' a ')'  a floor through (x, y) turned a degrees
 *                                      counter-clockwise on screen (0 = floor,
 *                                      90 = right wall, 180 = ceiling, -90 = left wall)
 *   number := ['+'|'-'] digits ['.' [digits]] [('e'|'E') ['+'|'-'] digits]
 *           | ['+'|'-'] '.' digits [exponent]
 *
 * Items fold left to right: each op merges its shape into everything before it; an
 * item without op is a union. The first item takes no op other than 'union'.
 * Every number must be finite and lie within [-1e6, 1e6]; radii, half sizes and blend
 * widths must not be negative; the shapes, weighed as SCENE_MAX_SHAPES says, number at
 * most SCENE_MAX_SHAPES. Example:
 *
 *   floor(0.9); circle(0.5,0.3,0.1) smin(0.05) box(0.2,0.6,0.1,0.05)
 */
#ifndef POYO_SCENE_H
#define POYO_SCENE_H

#include "sdf.h"
#include "util/error.h"

/* Largest canvas side scene_parse accepts, pixels. */
#define SCENE_MAX_SIDE 1000000

/* Most shapes a scene may hold, a shape repeated along one axis counting 3 and along
 * both 9 (the copies a point is measured against): every drop, render and query
 * costs in proportion, so this bounds their time. */
#define SCENE_MAX_SHAPES 64

/* The scene used when the user gives none: a floor near the bottom of the canvas. */
const char *scene_default_text(void);

/* Parses text for a width x height pixel canvas into a new scene in *out (caller
 * destroys it with sdf_scene_destroy). On a syntax or range error returns
 * POYO_ERR_USAGE, sets *out to NULL, fills err with "column N: what was expected"
 * ("line L, column N: ..." for text of several lines) and writes the 1-based column,
 * counted in characters from the start of its line, to *column (0 when the error has
 * no position, e.g. a bad canvas size). column may be NULL. */
poyo_status scene_parse(const char *text, int width, int height, sdf_scene **out,
                        int *column, poyo_error *err);

#endif
