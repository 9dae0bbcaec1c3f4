FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 VAR_DIR=/app/var
# WeasyPrint needs Pango; libharfbuzz-subset0 makes font subsetting (and so each PDF) ~8x faster.
RUN apt-get update \
    && apt-get install -y --no-install-recommends libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 fonts-dejavu-core \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY requirements.txt .
RUN pip install -r requirements.txt
COPY . .
# collectstatic needs only settings that load; the real secrets come at run time.
RUN SECRET_KEY=build ALLOWED_HOSTS=build PRIZE_LETTER_SECRET=build DATABASE_URL=postgres://build@localhost/build \
    python manage.py collectstatic --noinput \
    && useradd --system --uid 1000 promodesk && mkdir -p /app/var/media && chown -R promodesk /app/var
USER promodesk
EXPOSE 8000
# The default command is the web server: /healthz through plain Python (no curl in the image).
# docker-compose.yml gives the worker and beat their own checks.
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 \
    CMD ["python", "deploy/healthcheck.py", "http://127.0.0.1:8000/healthz"]
CMD ["gunicorn", "config.wsgi", "--config", "config/gunicorn.conf.py", "--bind", "0.0.0.0:8000", "--workers", "3", "--threads", "4"]
