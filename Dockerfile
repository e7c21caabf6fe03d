# syntax=docker/dockerfile:1
# Multi-stage image of the service: one image, three process roles (see docker-compose.yml).
# It cannot be built on the development machines (no Docker engine there): docs/deploy.md.

# --- build: full install (better-sqlite3 compiles here if no prebuilt binary), compile, prune ---
FROM node:20-bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
COPY server/package.json server/
COPY web/package.json web/
RUN npm ci --no-audit --no-fund
COPY server server
COPY web web
COPY scripts scripts
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund

# --- proxy: nginx in front of the API processes (docker-compose.yml, deploy/nginx.conf). Debian's
# nginx has gzip_static, and Debian packages the brotli_static module; the hashed web assets are
# copied in with the .br / .gz files the build wrote, so nginx serves them without compressing.
# Build it with `docker build --target proxy`; the image of the service is the last stage.
FROM debian:bookworm-slim AS proxy
RUN apt-get update \
 && apt-get install -y --no-install-recommends nginx libnginx-mod-http-brotli-static \
 && rm -rf /var/lib/apt/lists/* /etc/nginx/sites-enabled/default \
 && ln -sf /dev/stdout /var/log/nginx/access.log \
 && ln -sf /dev/stderr /var/log/nginx/error.log
COPY --from=build /app/web/dist/assets /usr/share/cps/web/assets
COPY deploy/nginx.conf /etc/nginx/conf.d/default.conf
EXPOSE 80
STOPSIGNAL SIGQUIT
CMD ["nginx", "-g", "daemon off;"]

# --- runtime: compiled code and production dependencies only, as an unprivileged user ---
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=build --chown=root:root /app/package.json ./
COPY --from=build --chown=root:root /app/node_modules node_modules
COPY --from=build --chown=root:root /app/scripts scripts
COPY --from=build --chown=root:root /app/server/package.json server/
COPY --from=build --chown=root:root /app/server/dist server/dist
COPY --from=build --chown=root:root /app/web/dist web/dist
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
# The process roles are the npm scripts' commands (`npm run api|worker|migrate`, `npm start`),
# run with node directly so signals reach the service (npm would not forward SIGTERM cleanly).
# Without sources in the image, scripts/start.mjs finds nothing to rebuild and starts dist/.
ENTRYPOINT ["node", "scripts/start.mjs"]
CMD ["--role", "all"]
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
