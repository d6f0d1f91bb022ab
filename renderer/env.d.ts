// Vite's asset imports (the stylesheet).
declare module '*.css';
