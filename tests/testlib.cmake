# The test machinery itself (tests/testlib_test.py): a driver that runs no
# check fails, and so does a skip under CI=true.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  foreach(group zero ci_skip need)
    add_test(NAME testlib.${group}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/testlib_test.py ${group})
  endforeach()
endif()
