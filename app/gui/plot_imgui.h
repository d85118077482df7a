// The window's backend of the plotting layer (app/io/plot.h): paints a figure's layout with ImGui's
// draw lists, and shows the nearest point's x and y while the mouse is over the plot.
#pragma once
#include "app/io/plot.h"

namespace ds::gui {

// Draws `f` as an item `width` x `height` pixels at the cursor (width <= 0: the available width).
// Returns the layout, whose transform places overlays (markers) on the same axes.
app::plot::Layout draw_plot(const char* id, const app::plot::Figure& f, float width, float height);

}  // namespace ds::gui
