# Runs at install time (from install(CODE) in cmake/OptracePackaging.cmake),
# when the final prefix is known: `cmake --install --prefix P`, a DESTDIR
# staging, or CPack. Installs text files whose absolute paths (the daemon
# binary, the config file, the docs) must name where they really land.

# The system configuration folder for the install-time prefix, as
# GNUInstallDirs decides it: /etc for the prefixes / and /usr, /etc/opt/...
# for /opt/..., else PREFIX/etc. `sysconfdir` is CMAKE_INSTALL_SYSCONFDIR
# as configured; an absolute one is kept.
function(optrace_install_sysconfdir sysconfdir out)
  if(IS_ABSOLUTE "${sysconfdir}")
    set(dir "${sysconfdir}")
  elseif(CMAKE_INSTALL_PREFIX MATCHES "^/(usr/?)?$")
    set(dir "/${sysconfdir}")
  elseif(CMAKE_INSTALL_PREFIX MATCHES "^/opt/")
    set(dir "/${sysconfdir}${CMAKE_INSTALL_PREFIX}")
  else()
    set(dir "${CMAKE_INSTALL_PREFIX}/${sysconfdir}")
  endif()
  set(${out} "${dir}" PARENT_SCOPE)
endfunction()

# Absolute form of an install folder relative to the install-time prefix.
function(optrace_install_full dir out)
  if(IS_ABSOLUTE "${dir}")
    set(${out} "${dir}" PARENT_SCOPE)
  else()
    set(${out} "${CMAKE_INSTALL_PREFIX}/${dir}" PARENT_SCOPE)
  endif()
endfunction()

# Copies `source` to `destination` (a folder: absolute, or relative to the
# prefix), first replacing each `from` text of `replacements` (a list of
# from;to pairs) in it. `scratch` is a build-tree folder for the edited copy.
function(optrace_install_configured source destination scratch)
  file(READ "${source}" text)
  set(pairs ${ARGN})
  list(LENGTH pairs n)
  set(i 0)
  while(i LESS n)
    math(EXPR j "${i} + 1")
    list(GET pairs ${i} from)
    list(GET pairs ${j} to)
    string(REPLACE "${from}" "${to}" text "${text}")
    math(EXPR i "${i} + 2")
  endwhile()
  get_filename_component(name "${source}" NAME)
  # One scratch folder per install target, so that installs to different
  # places (a staging prefix, CPack's) may run at the same time.
  string(MD5 target "$ENV{DESTDIR}|${CMAKE_INSTALL_PREFIX}")
  set(scratch "${scratch}/${target}")
  file(MAKE_DIRECTORY "${scratch}")
  file(WRITE "${scratch}/${name}" "${text}")
  optrace_install_full("${destination}" dest)
  file(INSTALL DESTINATION "${dest}" TYPE FILE
       PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ
       FILES "${scratch}/${name}")
endfunction()
