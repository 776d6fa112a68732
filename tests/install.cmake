# The manual pages, the bash completion and `cmake --install`
# (tests/install/test_pages.py): one ctest test per group.
find_package(Python3 COMPONENTS Interpreter)
if(TARGET ibscope AND TARGET man-pages AND TARGET bash-completion AND Python3_Interpreter_FOUND)
  foreach(group pages completion install)
    add_test(NAME install.${group}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/install/test_pages.py
                     --build ${CMAKE_BINARY_DIR} --source-dir ${PROJECT_SOURCE_DIR} ${group})
  endforeach()
endif()
