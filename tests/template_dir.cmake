# Embedded templates by default, CUJIT_TEMPLATE_DIR as the only override (tests/cli/template_dir_test.sh).
add_test(NAME template_dir COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/template_dir_test.sh
  $<TARGET_FILE:jitcache> ${PROJECT_SOURCE_DIR}/templates)
