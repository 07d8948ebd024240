// The C++ layer over DART in one include: runtime and teams, global
// pointers and references, Array, Matrix and the algorithms.
#pragma once

#include "algorithm.hpp"
#include "array.hpp"
#include "core.hpp"
#include "glob_ptr.hpp"
#include "matrix.hpp"
