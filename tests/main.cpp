// Catch2 main for both major versions (2.x has no Catch2WithMain target).
#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

int main(int argc, char** argv) { return Catch::Session().run(argc, argv); }
