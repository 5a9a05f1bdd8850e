// scripts/build-web.mjs loads a document of operations/ as its text (esbuild's text loader).
declare module '*.graphql' {
  const text: string;
  export default text;
}
