# syntax=docker/dockerfile:1
# One image for every role of the fleet; the command picks the role:
#   docker run IMAGE api | worker model | worker tool | sim --port 9100 --host 0.0.0.0
# Stages: deps (production node_modules only) and build (TypeScript → dist/) feed a slim runtime
# that runs compiled JavaScript on plain node as the unprivileged `node` user.
ARG NODE_IMAGE=node:24-slim

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts/prune-dev-optional-peers.mjs ./scripts/
# --ignore-scripts: no dependency needs an install script at run time (native addons ship as
# prebuilt optional packages), and none gets to run code during the build. --omit=dev keeps
# devDependencies that a production package names as an optional peer (TypeScript, for valibot);
# the prune removes them, since nothing loads them at run time.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force \
  && node scripts/prune-dev-optional-peers.mjs

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY workers ./workers
# The run console's browser sources; `npm run build` bundles them into dist/console/ (esbuild is a
# devDependency, present in this stage only), which the runtime stage copies with the rest of dist/.
COPY console ./console
COPY scripts/build-console.mjs ./scripts/build-console.mjs
RUN npm run build

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    BUILDFLEET_API_HOST=0.0.0.0 \
    BUILDFLEET_API_PORT=8080 \
    BUILDFLEET_METRICS_HOST=0.0.0.0 \
    BUILDFLEET_METRICS_PORT=9464 \
    BUILDFLEET_CONSOLE_HOST=0.0.0.0 \
    BUILDFLEET_CONSOLE_PORT=8082
WORKDIR /app
# Owned by root and read-only to the `node` user: the process cannot rewrite its own code.
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
# The site store's mount point (BUILDFLEET_SITES_DIR in compose and k8s), owned by `node`: a new
# named volume mounted here takes this ownership, so tool workers can write it.
RUN mkdir -p /data/sites && chown node:node /data/sites
USER node
# 8080 API, 8082 the run console (docs/console.md), 9464 health and metrics of every role, 9100
# the simulator (when run as `sim`).
EXPOSE 8080 8082 9464 9100
# Every role serves /readyz on BUILDFLEET_METRICS_PORT, so one check fits them all.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.BUILDFLEET_METRICS_PORT||9464)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM starts the graceful shutdown (BUILDFLEET_SHUTDOWN_TIMEOUT_MS); node runs as PID 1 and
# handles it itself, so no init shim is needed.
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "dist/src/cli.js"]
CMD ["api"]
