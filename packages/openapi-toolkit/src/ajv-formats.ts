// ajv-formats is a CommonJS module whose default export arrives as `.default` under NodeNext.
import type { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';

type AddFormats = (ajv: Ajv) => Ajv;
const module = addFormatsModule as unknown as AddFormats & { default?: AddFormats };

export const addFormats: AddFormats = module.default ?? module;
