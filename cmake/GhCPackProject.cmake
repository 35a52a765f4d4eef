# Read by cpack once per generator (CPACK_PROJECT_CONFIG_FILE): the DEB leaves the bundled
# libraries out (it depends on the distribution's); the TGZ carries them.
if(CPACK_GENERATOR STREQUAL "DEB")
  list(REMOVE_ITEM CPACK_COMPONENTS_ALL bundled)
endif()
