# Toolsmith on Node 22 and Debian 12, with the runtime packages of scripts/debian-packages.txt: bubblewrap, CPython
# 3.11 and the Python libraries tools import. The sandbox needs the container to allow namespaces: see the
# security_opt in docker-compose.yml (the same goes for `docker run`).
FROM node:22-bookworm-slim

ENV NEXT_TELEMETRY_DISABLED=1

# The same script and list as `npm run setup` (as root here, so without sudo); it needs Node only.
COPY scripts/setup.mjs scripts/debian-packages.mjs scripts/debian-packages.txt /tmp/setup/
RUN node /tmp/setup/setup.mjs && rm -rf /tmp/setup /var/lib/apt/lists/*

WORKDIR /app
RUN chown node:node /app
USER node

# The dependencies before the rest of the code, so that a change to the code alone reuses this layer. npm ci's
# postinstall generates the Prisma clients (scripts/generate-clients.mjs, from prisma/ and prisma.config.ts).
COPY --chown=node:node package.json package-lock.json prisma.config.ts ./
COPY --chown=node:node prisma prisma
COPY --chown=node:node scripts/generate-clients.mjs scripts/
RUN npm ci

COPY --chown=node:node . .
# data/: the SQLite database's directory when DATABASE_URL names none (mount a volume there to keep it).
RUN npm run build && mkdir -p data

EXPOSE 3000
# npm start migrates the database, finds the build up to date and serves on PORT (3000). npm is the container's
# first process: it passes `docker stop`'s SIGTERM on to the server, which hands its runs over (docs/configuration.md,
# "Several instances").
CMD ["npm", "start"]
