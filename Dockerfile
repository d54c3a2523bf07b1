# Orma on a home server:
#   docker build -t orma .
#   docker run -p 8080:8080 -v orma-data:/data \
#     -e ORMA_UPSTREAM=http://host.docker.internal:11434/v1 -e ORMA_API_KEYS='sk-me=*' orma
# It binds 0.0.0.0, so it refuses to start without ORMA_API_KEYS (or ORMA_INSECURE=1).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1

RUN useradd --create-home --uid 10001 orma \
    && mkdir -p /data /app \
    && chown orma:orma /data

WORKDIR /app
COPY pyproject.toml README.md ./
COPY orma_proxy ./orma_proxy
COPY orma ./orma
COPY webui_passthrough ./webui_passthrough
COPY migrations ./migrations

# The same install steps as .ci/run (without the dev extras).
RUN pip install -e .

USER orma
ENV ORMA_DIR=/data \
    ORMA_HOST=0.0.0.0 \
    ORMA_PORT=8080 \
    ORMA_UPSTREAM=http://host.docker.internal:11434/v1
VOLUME ["/data"]
EXPOSE 8080

HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8080/health', timeout=4)"

CMD ["orma", "proxy"]
