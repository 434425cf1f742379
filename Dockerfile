# syntax=docker/dockerfile:1
#
# One image for every service of the platform. The process to run is chosen at run time:
#   node services/gateway/dist/main.js        (default CMD)
#   node services/<service>/dist/main.js      (affiliate, tracking, commission, payout, webhook,
#                                             web)
#   node services/gateway/dist/ops/cli.js ... (ops CLI: merchant:create, merchant:rotate-secret)
#
# Build:  docker build -t affiliate-platform:local .
# Stages: manifests -> build (npm ci + npm run build) and prod-deps (npm ci --omit=dev) -> runtime.
# New workspaces under libs/ or services/ are picked up without editing this file. Dev tooling
# (tools/, e.g. @aff/devstack) is only built and type-checked here; none of it is in the image.
# CI builds these stages without Docker (deploy/ci/dockerfile-dry-run.cjs, docs/deploy.md): keep
# its absolute paths under /app, /src, /manifests and /out, or teach that script the new one.

ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS base
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false

# Only the workspace manifests, at their paths, so the `npm ci` layers below stay cached
# until a package.json or the lockfile changes (not on every source edit).
FROM base AS manifests
COPY libs /src/libs
COPY services /src/services
COPY tools /src/tools
RUN mkdir /manifests \
 && cd /src \
 && find libs services tools -mindepth 2 -maxdepth 2 -name package.json -exec cp --parents {} /manifests/ \;

# Full install (dev dependencies included) and `npm run build`.
# --ignore-scripts: nothing in the tree needs an install script to build or run (the only
# native candidates, ssh2/cpu-features under @aff/devstack's testcontainers, fall back to JS),
# and skipping them keeps the build free of node-gyp/python.
# The whole context is copied because `npm run build` also type-checks tests (tsconfig.json);
# .dockerignore keeps node_modules, dist and local secrets out.
FROM base AS build
COPY package.json package-lock.json ./
COPY --from=manifests /manifests/ ./
RUN --mount=type=cache,target=/root/.npm \
    npm ci --ignore-scripts
COPY . .
RUN npm run build \
 && mkdir /out \
 && find libs services -mindepth 2 -maxdepth 2 -type d -name dist -exec cp -a --parents {} /out/ \; \
 && find /out -type f \( -name '*.tsbuildinfo' -o -name '*.d.ts' -o -name '*.d.ts.map' \) -delete

# Production dependencies only, installed fresh (in parallel with the build stage). The tools/
# workspaces have only devDependencies; their manifests and links go once npm ci has read them.
FROM base AS prod-deps
COPY package.json package-lock.json ./
COPY --from=manifests /manifests/ ./
RUN --mount=type=cache,target=/root/.npm \
    npm ci --omit=dev --ignore-scripts \
 && for ws in tools/*/; do rm -f "node_modules/$(node -p "require('./$ws/package.json').name")"; done \
 && rm -rf tools

FROM base AS runtime
ENV NODE_ENV=production
# package.json + package-lock.json, node_modules (workspace packages are symlinks into
# libs/ and services/), every workspace's package.json ...
COPY --from=prod-deps /app/ ./
# ... and every workspace's compiled dist/. Files stay root-owned: the app writes nothing
# to its own tree, so the unprivileged user cannot modify the code it runs.
COPY --from=build /out/ ./
USER node
# gateway HTTP; health ports of the NATS services (affiliate 8101 ... webhook 8105, web 8106)
EXPOSE 8080 8101 8102 8103 8104 8105 8106
CMD ["node", "services/gateway/dist/main.js"]
