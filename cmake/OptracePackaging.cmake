# Install rules for what is not a build target (systemd units, default
# config, man pages, docs, the CMake and pkg-config package files of
# liboptrace) and the CPack setup of the two Debian packages. Included at the
# end of the top-level CMakeLists.txt, once every target exists.
#
# Install components (docs/deploy.md):
#   optrace  optraced, optrace, optrace-demo, liboptrace.so.N (runtime),
#            the Python package optrace (python/), the proto, units,
#            sysusers.d, /etc/optrace/optraced.toml, man pages, docs. The
#            default component of every install() rule.
#   dev      headers, the liboptrace.so link, the CMake package, optrace.pc.
#
#   cmake --install build --prefix /usr          # or DESTDIR=... for staging
#   cpack --config build/CPackConfig.cmake -B out   # optrace_*.deb, liboptrace-dev_*.deb
#
# Files that name absolute paths (the unit's ExecStart, the config path,
# optrace.pc's prefix) are written at install time for the prefix given
# then (deploy/cmake/InstallConfigured.cmake): /usr gives /usr/sbin/optraced
# and /etc/optrace/optraced.toml, a staging prefix P gives P/sbin/optraced
# and P/etc/optrace/optraced.toml.
include(CMakePackageConfigHelpers)

set(OPTRACE_SYSTEMD_SYSTEM_UNIT_DIR "lib/systemd/system" CACHE STRING
    "Install folder of the system unit (relative to the prefix, or absolute)")
set(OPTRACE_SYSTEMD_USER_UNIT_DIR "lib/systemd/user" CACHE STRING
    "Install folder of the user unit (relative to the prefix, or absolute)")
set(OPTRACE_SYSUSERS_DIR "lib/sysusers.d" CACHE STRING
    "Install folder of the sysusers.d file (relative to the prefix, or absolute)")

set(_optrace_deploy "${PROJECT_SOURCE_DIR}/deploy")
set(_optrace_scratch "${PROJECT_BINARY_DIR}/deploy-install")

# ---- files whose paths follow the install-time prefix ----------------------
# install(CODE) runs in the install script, where CMAKE_INSTALL_PREFIX is
# the final one; escaped \${...} expand there, the others here.
install(CODE "
include(\"${_optrace_deploy}/cmake/InstallConfigured.cmake\")
optrace_install_sysconfdir(\"${CMAKE_INSTALL_SYSCONFDIR}\" _optrace_etc)
optrace_install_full(\"${CMAKE_INSTALL_SBINDIR}\" _optrace_sbin)
optrace_install_full(\"${CMAKE_INSTALL_DOCDIR}\" _optrace_doc)
set(_optrace_paths
  /usr/sbin/optraced \"\${_optrace_sbin}/optraced\"
  /etc/optrace/optraced.toml \"\${_optrace_etc}/optrace/optraced.toml\"
  /usr/share/doc/optrace \"\${_optrace_doc}\")
optrace_install_configured(\"${_optrace_deploy}/systemd/optraced.service\"
  \"${OPTRACE_SYSTEMD_SYSTEM_UNIT_DIR}\" \"${_optrace_scratch}/system\" \${_optrace_paths})
optrace_install_configured(\"${_optrace_deploy}/systemd/user/optraced.service\"
  \"${OPTRACE_SYSTEMD_USER_UNIT_DIR}\" \"${_optrace_scratch}/user\" \${_optrace_paths})
optrace_install_configured(\"${_optrace_deploy}/optraced.toml\"
  \"\${_optrace_etc}/optrace\" \"${_optrace_scratch}/etc\")
" COMPONENT optrace)

install(FILES "${_optrace_deploy}/systemd/optrace.conf"
        DESTINATION "${OPTRACE_SYSUSERS_DIR}" COMPONENT optrace)
install(FILES "${_optrace_deploy}/man/optraced.8"
        DESTINATION "${CMAKE_INSTALL_MANDIR}/man8" COMPONENT optrace)
install(FILES "${_optrace_deploy}/man/optrace.1"
        DESTINATION "${CMAKE_INSTALL_MANDIR}/man1" COMPONENT optrace)
install(FILES
          "${PROJECT_SOURCE_DIR}/README.md"
          "${PROJECT_SOURCE_DIR}/docs/deploy.md"
          "${PROJECT_SOURCE_DIR}/docs/daemon.md"
          "${PROJECT_SOURCE_DIR}/docs/api.md"
          "${PROJECT_SOURCE_DIR}/docs/design.md"
          "${PROJECT_SOURCE_DIR}/docs/abi.md"
          "${PROJECT_SOURCE_DIR}/docs/fleet.md"
          "${PROJECT_SOURCE_DIR}/docs/python.md"
        DESTINATION "${CMAKE_INSTALL_DOCDIR}" COMPONENT optrace)
# The ClickHouse DDL that optraced runs when it forwards (docs/fleet.md),
# for operators who create the tables themselves.
install(FILES "${_optrace_deploy}/clickhouse/README.md"
              "${_optrace_deploy}/clickhouse/spans_table.sql"
              "${_optrace_deploy}/clickhouse/spans_distributed.sql"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/optrace/clickhouse" COMPONENT optrace)
install(PROGRAMS "${_optrace_deploy}/clickhouse/create-tables.sh"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/optrace/clickhouse" COMPONENT optrace)
install(FILES "${_optrace_deploy}/systemd/listen-tcp.conf"
              "${_optrace_deploy}/systemd/metrics-listen.conf"
              "${_optrace_deploy}/prometheus/prometheus.yml"
              "${_optrace_deploy}/prometheus/optrace-alerts.yml"
              "${_optrace_deploy}/grafana/optrace-dashboard.json"
        DESTINATION "${CMAKE_INSTALL_DOCDIR}/examples" COMPONENT optrace)

# ---- liboptrace for other projects: CMake package and pkg-config ----------
set(OPTRACE_CMAKE_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/optrace")
set(OPTRACE_PROTO_INSTALL_DIR "${CMAKE_INSTALL_DATADIR}/optrace/proto")
install(EXPORT optraceTargets NAMESPACE optrace:: FILE optraceTargets.cmake
        DESTINATION "${OPTRACE_CMAKE_INSTALL_DIR}" COMPONENT dev)
configure_package_config_file("${_optrace_deploy}/cmake/optraceConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/optraceConfig.cmake"
  INSTALL_DESTINATION "${OPTRACE_CMAKE_INSTALL_DIR}"
  PATH_VARS OPTRACE_PROTO_INSTALL_DIR)
# 0.x: minor versions may break the API, so only the same minor matches.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/optraceConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}" COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/optraceConfig.cmake"
              "${PROJECT_BINARY_DIR}/optraceConfigVersion.cmake"
        DESTINATION "${OPTRACE_CMAKE_INSTALL_DIR}" COMPONENT dev)

# optrace.pc: the prefix is only known at install time.
set(OPTRACE_PC_PREFIX "%OPTRACE_INSTALL_PREFIX%")
foreach(_kind LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${_kind}}")
    set(OPTRACE_PC_${_kind} "${CMAKE_INSTALL_${_kind}}")
  else()
    set(OPTRACE_PC_${_kind} "\${prefix}/${CMAKE_INSTALL_${_kind}}")
  endif()
endforeach()
configure_file("${_optrace_deploy}/pkgconfig/optrace.pc.in"
               "${PROJECT_BINARY_DIR}/deploy-templates/optrace.pc" @ONLY)
install(CODE "
include(\"${_optrace_deploy}/cmake/InstallConfigured.cmake\")
optrace_install_configured(\"${PROJECT_BINARY_DIR}/deploy-templates/optrace.pc\"
  \"${CMAKE_INSTALL_LIBDIR}/pkgconfig\" \"${_optrace_scratch}/pkgconfig\"
  %OPTRACE_INSTALL_PREFIX% \"\${CMAKE_INSTALL_PREFIX}\")
" COMPONENT dev)

# ---- CPack: optrace_<v>_<arch>.deb and liboptrace-dev_<v>_<arch>.deb -------
set(CPACK_PACKAGE_NAME "optrace")
set(CPACK_PACKAGE_VENDOR "optrace")
set(CPACK_PACKAGE_CONTACT "optrace maintainers <optrace@localhost>")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
# CPack's own default summary: CPackDeb then takes the first line of each
# component's description as that package's synopsis, instead of prefixing
# one summary shared by both packages.
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${CMAKE_PROJECT_NAME} built using CMake")
set(CPACK_RESOURCE_FILE_README "${PROJECT_SOURCE_DIR}/README.md")
set(CPACK_GENERATOR "DEB")
set(CPACK_COMPONENTS_ALL optrace dev)
if(TARGET optrace_torch)
  list(APPEND CPACK_COMPONENTS_ALL torch)
endif()
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_STRIP_FILES ON)
# Install with DESTDIR and the real prefix, so that the install-time files
# above see /usr (and the config lands in /etc, not /usr/etc).
set(CPACK_SET_DESTDIR ON)
set(CPACK_INSTALL_PREFIX "/usr")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_DEBIAN_FILE_NAME "DEB-DEFAULT")
set(CPACK_DEBIAN_PACKAGE_RELEASE "1")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)

set(CPACK_DEBIAN_OPTRACE_PACKAGE_NAME "optrace")
set(CPACK_DEBIAN_OPTRACE_PACKAGE_SECTION "utils")
set(CPACK_COMPONENT_OPTRACE_DESCRIPTION
    "low-overhead op tracing for ML and GPU runtimes: daemon, CLI, library
optraced drains the shared-memory rings of traced processes into SQLite and
serves live levels, tails and queries over gRPC; optrace is its command-line
client; liboptrace.so is the producer library; optrace-demo a demo runtime;
the Python package optrace records ops from Python and queries optraced.
Includes the systemd units (system and user) and /etc/optrace/optraced.toml.")
# Depends: the shared libraries the binaries need (gRPC, protobuf, SQLite,
# RE2, libsystemd...), found by dpkg-shlibdeps.
set(CPACK_DEBIAN_OPTRACE_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_OPTRACE_PACKAGE_SUGGESTS "systemd")
# The Python package `optrace` (python/, for Debian's python3 3.11): its
# query client needs gRPC and protobuf for Python; producers need neither.
set(CPACK_DEBIAN_OPTRACE_PACKAGE_RECOMMENDS "python3 (>= 3.11), python3 (<< 3.12), python3-grpcio, python3-protobuf")
# A shlibs file (liboptrace 0 optrace (= V)) for the dpkg-shlibdeps of
# packages built against liboptrace.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)

# liboptrace_torch (torch/) in a package of its own, so that the optrace
# package does not depend on libtorch (about 200 MB).
set(CPACK_DEBIAN_TORCH_PACKAGE_NAME "optrace-torch")
set(CPACK_DEBIAN_TORCH_PACKAGE_SECTION "python")
# Depends are stated, not found by dpkg-shlibdeps: liboptrace.so.0 is in
# the optrace package, which dpkg-shlibdeps cannot see while packaging this
# one, and python3-torch brings libtorch (libtorch_cpu, libc10).
set(CPACK_DEBIAN_TORCH_PACKAGE_DEPENDS
    "optrace (= ${PROJECT_VERSION}-${CPACK_DEBIAN_PACKAGE_RELEASE}), python3-torch")
set(CPACK_DEBIAN_TORCH_PACKAGE_SHLIBDEPS OFF)
set(CPACK_COMPONENT_TORCH_DESCRIPTION
    "PyTorch ops traced by optrace, with no code changed
liboptrace_torch.so records every aten op and autograd function of a
PyTorch program as an optrace op, tagged by input shapes, with the calling
Python line (optrace.torch; optrace run --torch).")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME "liboptrace-dev")
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION "libdevel")
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
    "optrace (= ${PROJECT_VERSION}-${CPACK_DEBIAN_PACKAGE_RELEASE})")
set(CPACK_COMPONENT_DEV_DESCRIPTION
    "development files of liboptrace, the optrace producer library
Headers (C API optrace/optrace.h, C++20 API optrace/optrace.hpp), the
CMake package (find_package(optrace), target optrace::client) and the
pkg-config file optrace.pc. The runtime library is in the optrace package.")

# Maintainer scripts: the user (sysusers.d), systemd reload, the conffile.
set(_optrace_debian "${PROJECT_BINARY_DIR}/deploy-debian")
set(SYSUSERS_FILE "${CPACK_PACKAGING_INSTALL_PREFIX}/${OPTRACE_SYSUSERS_DIR}/optrace.conf")
if(IS_ABSOLUTE "${OPTRACE_SYSUSERS_DIR}")
  set(SYSUSERS_FILE "${OPTRACE_SYSUSERS_DIR}/optrace.conf")
endif()
configure_file("${_optrace_deploy}/debian/postinst.in" "${_optrace_debian}/postinst" @ONLY
               FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                                WORLD_READ WORLD_EXECUTE)
file(COPY "${_optrace_deploy}/debian/prerm" "${_optrace_deploy}/debian/postrm"
     DESTINATION "${_optrace_debian}"
     FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                      WORLD_READ WORLD_EXECUTE)
file(WRITE "${_optrace_debian}/conffiles" "/etc/optrace/optraced.toml\n")
# liboptrace.so.0: refresh the linker cache after install and removal (our
# own postinst/postrm replace the ldconfig calls CPack would generate).
file(WRITE "${_optrace_debian}/triggers" "activate-noawait ldconfig\n")
set(CPACK_DEBIAN_OPTRACE_PACKAGE_CONTROL_EXTRA
    "${_optrace_debian}/conffiles;${_optrace_debian}/triggers;${_optrace_debian}/postinst"
    "${_optrace_debian}/prerm;${_optrace_debian}/postrm")

include(CPack)
cpack_add_component(optrace DISPLAY_NAME "optrace daemon, CLI and runtime library" REQUIRED)
cpack_add_component(dev DISPLAY_NAME "liboptrace development files" DEPENDS optrace)
