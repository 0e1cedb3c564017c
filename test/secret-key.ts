// The key of stored secrets (SWITCHYARD_SECRET_KEY) that test and bench processes run with: PostgreSQL dashboards need
// one to start, and in-process stores seal with it. Never a production key.
export const TEST_SECRET_KEY = "5e1f0c7a9b3d2e4f6a8b0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f";
