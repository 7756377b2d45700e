// Catch2 2.x (Debian 12) and 3.x (Ubuntu 24.04) behind one include.
#pragma once
#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
using Catch::Approx;  // 2.x has it at global scope
#else
#include <catch2/catch.hpp>
#endif
