// Stub: see <ipu_vector_math>.
#pragma once
#include <ipu_vector_math>
