# The event service for docker-compose.yml (or any container runtime): node 20, compiled, non-root.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY patches ./patches
# The lockfile holds every platform's optional packages, so `npm ci` installs exactly it. No install
# script is needed to build or run (they would compile optional native watchers for jest), but our own
# fix of a dependency (patches/, see docs/architecture.md) is applied as `npm install` applies it.
RUN npm ci --no-audit --no-fund --ignore-scripts && npx patch-package
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    PORT=8443 \
    DATA_DIR=/app/data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# DATA_DIR keeps the self-signed certificate (without TLS_CERT_FILE) and, without DATABASE_URL, the embedded database.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 8443
# SIGTERM drains in-flight requests for up to 10 s, then closes the database and exits 0.
STOPSIGNAL SIGTERM
# V8 flags, as in `npm start` (docs/operating.md, Memory): the old generation grows to twice its live
# size at most (not four times), and no allocation-site pretenuring (after a bulk load of slow creates it
# sent every request's objects to the old generation). Node refuses both in NODE_OPTIONS.
CMD ["node", "--heap-growing-percent=100", "--no-allocation-site-pretenuring", "dist/server.js"]
