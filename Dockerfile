# syntax=docker/dockerfile:1
# apis-gateway: one Node.js 20 service (/v2/apis and the /v1 AI gateway), SQLite embedded.
#   docker build -t apis-gateway .
#   docker run -p 4399:4399 -v apis-data:/app/data/state apis-gateway
# The SQLite database lives in the volume /app/data/state; the datasets bundled in data/
# (corpora, region and language lists) are part of the image, so an upgrade brings new ones.

# --- build: dependencies (better-sqlite3 compiled for this image), then dist/ compiled ---------
FROM node:20-bookworm-slim AS build
WORKDIR /app
# Toolchain for native modules (better-sqlite3) when no prebuilt binary fits.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts/build.mjs scripts/latin1-only.mjs ./scripts/
COPY src ./src
COPY sources ./sources
COPY data ./data
# The compiled service (esbuild, a dev dependency), then only the production dependencies.
RUN node scripts/build.mjs \
 && npm prune --omit=dev --no-audit --no-fund \
 && npm cache clean --force

# --- runtime: compiled JavaScript, no TypeScript and no transpiler --------------------------
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4399 \
    DB_PATH=/app/data/state/app.sqlite
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json package-lock.json ./
COPY scripts/build.mjs scripts/latin1-only.mjs ./scripts/
COPY data ./data
# The only writable place: owned by the unprivileged `node` user of the base image.
RUN mkdir -p /app/data/state && chown node:node /app/data/state
USER node
VOLUME ["/app/data/state"]
EXPOSE 4399
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4399) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node itself is PID 1 (no npm parent) and handles SIGTERM (drains requests, closes the database).
# Keys: docker exec <container> node dist/keys.js create --name NAME
CMD ["node", "dist/main.js"]
