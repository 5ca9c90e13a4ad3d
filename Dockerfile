# The production image of nats-agents: one image runs every service. The command picks it:
#   node dist/apps/{ingress,activator,effector,memory-store,console}/src/main.js
#   node bin/nats-agents.mjs provision
# (the Helm chart in helm/nats-agents does exactly this). Build: docker build -t nats-agents .

# --- build: install the lockfile exactly, compile, then drop dev dependencies -------------------
FROM node:20.20.2-bookworm AS build
WORKDIR /app
# The full Debian image has python3, make and g++ in case better-sqlite3 must compile.
COPY package.json package-lock.json ./
# npm workspaces: the publishable packages' manifests must be present for npm ci to link them.
COPY packages ./packages
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY apps ./apps
COPY libs ./libs
COPY examples ./examples
COPY scripts ./scripts
RUN npm run build && npm run build:packages && npm prune --omit=dev --no-audit --no-fund

# --- runtime: Node and the compiled code only, owned by root, run as the unprivileged `node` ---
FROM node:20.20.2-bookworm-slim
ENV NODE_ENV=production
# The services' Node flags (libs/config/src/service-node-flags.ts; a spec keeps the two equal).
# V8 flags Node refuses here, each service sets on itself (libs/config/src/service-v8-flags.ts).
ENV NODE_OPTIONS="--max-semi-space-size=64"
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The built packages (node_modules/@nats-agents/* link here).
COPY --from=build /app/packages ./packages
# Agents mounted outside /app (/opt/agents from a volume) resolve bare imports from their own
# directory up to the root: with no node_modules of their own, the search ends in /node_modules,
# which is the runtime's, so `import '@nats-agents/sdk'` finds the image's copy. A node_modules
# beside the agents (their own SDK copy, zod, ...) is found first.
RUN ln -s /app/node_modules /node_modules
COPY bin ./bin
# Plain JavaScript example agents are loaded from source (the others are compiled into dist/).
COPY examples/echo ./examples/echo
# The image's `node` user (uid 1000). The code stays root-owned and read-only to it; the chart
# also mounts the root filesystem read-only and gives the process an emptyDir at /tmp.
USER 1000:1000
# 8080: the ingress HTTP API; 9464: every service's ops listener (/metrics, /healthz, /readyz).
EXPOSE 8080 9464
CMD ["node", "bin/nats-agents.mjs", "--help"]
