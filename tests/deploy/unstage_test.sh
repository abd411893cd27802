#!/usr/bin/env bash
# deploy.unstage (cleanup of the deploy.stage fixture): removes the staged
# install from /tmp once every test that uses it has run
# (OPTRACE_DEPLOY_KEEP=1 keeps it, as it keeps each test's folder).
TEST_NAME=unstage
source "$(dirname "$0")/deploy_lib.sh"

if [ "${OPTRACE_DEPLOY_KEEP:-0}" = 1 ]; then
  echo "kept the stage at $STAGE"
else
  remove_stage
  echo "removed the stage at $STAGE"
fi
